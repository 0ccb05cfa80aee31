import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';

/** The first capability policy of a tenant, set twice at once (a retry, two admins): both answer 200, one row. */
describeEachDialect('concurrent PUTs of a new tenant capability policy', (dialect) => {
  const suite = gatewayForSuite(dialect);

  it('both answer 200 and the policy is one of the two values', async () => {
    for (const tenant of ['cap-a', 'cap-b', 'cap-c']) {
      const put = (webSearch: boolean) =>
        suite.gw.http.put(`/api/v1/admin/tenants/${tenant}/capabilities`).set(suite.gw.admin).send({ webSearch });
      const answers = await Promise.all([put(true), put(false), put(true)]);
      expect(answers.map((a) => [a.status, a.body.error?.code])).toEqual([
        [200, undefined],
        [200, undefined],
        [200, undefined],
      ]);
      const got = await suite.gw.http
        .get(`/api/v1/admin/tenants/${tenant}/capabilities`)
        .set(suite.gw.admin)
        .expect(200);
      expect(typeof got.body.webSearch).toBe('boolean');
    }
  });
});
