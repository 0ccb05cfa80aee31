import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite, toolBody } from '@test/support/gateway-test-app';

/**
 * The first configuration writes of a tenant (its config-version stamp does not exist yet) arriving at once, as an
 * import script or a deployment creating a tenant's tools in parallel does: every one answers 201.
 */
describeEachDialect('concurrent first writes of a new tenant', (dialect) => {
  const suite = gatewayForSuite(dialect);

  it('tools created at once in a tenant that has none are all created', async () => {
    for (const tenant of ['first-a', 'first-b', 'first-c']) {
      const create = () =>
        suite.gw.http
          .post('/api/v1/admin/tools')
          .set(suite.gw.admin)
          .send(toolBody({ tenantId: tenant }));
      const answers = await Promise.all([create(), create(), create(), create()]);
      expect(answers.map((a) => [a.status, a.body.error?.code])).toEqual(Array(4).fill([201, undefined]));
      const listed = await suite.gw.http
        .get(`/api/v1/admin/tools?tenantId=${tenant}&source=DB`)
        .set(suite.gw.admin)
        .expect(200);
      expect(listed.body.items.filter((t: { tenantId: string }) => t.tenantId === tenant)).toHaveLength(4);
    }
  });
});
