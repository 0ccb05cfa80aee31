import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';

/**
 * An agent named as another's sub-agent while it is being deleted: either the PATCH is refused (404) or the deletion
 * removes it from the list afterwards; the list never keeps the id of an agent that is gone. Two agents naming each
 * other at once lock each other's rows: a deadlock victim runs again.
 */
describeEachDialect('PATCH subAgentIds racing another PATCH or the sub-agent’s DELETE', (dialect) => {
  const suite = gatewayForSuite(dialect);
  const newAgent = async () =>
    (
      await suite.gw.http
        .post('/api/v1/admin/agents')
        .set(suite.gw.admin)
        .send({ name: `agent_${Math.random().toString(36).slice(2)}`, tenantId: 'subs' })
        .expect(201)
    ).body.id as string;

  it('never leaves a deleted agent among subAgentIds', async () => {
    const parent = await newAgent();
    for (let round = 0; round < 15; round++) {
      const child = await newAgent();
      const [patched, deleted] = await Promise.all([
        suite.gw.http
          .patch(`/api/v1/admin/agents/${parent}`)
          .set(suite.gw.admin)
          .send({ subAgentIds: [child] }),
        suite.gw.http.delete(`/api/v1/admin/agents/${child}`).set(suite.gw.admin),
      ]);
      expect([200, 404]).toContain(patched.status);
      expect(deleted.status).toBe(200);
      const got = await suite.gw.http.get(`/api/v1/admin/agents/${parent}`).set(suite.gw.admin).expect(200);
      expect([round, got.body.subAgentIds]).toEqual([round, []]);
    }
  });

  it('both PATCHes answer 200 (a deadlock victim runs again, not a 500)', async () => {
    for (let round = 0; round < 10; round++) {
      const [a, b] = [await newAgent(), await newAgent()];
      const answers = await Promise.all([
        suite.gw.http
          .patch(`/api/v1/admin/agents/${a}`)
          .set(suite.gw.admin)
          .send({ subAgentIds: [b] }),
        suite.gw.http
          .patch(`/api/v1/admin/agents/${b}`)
          .set(suite.gw.admin)
          .send({ subAgentIds: [a] }),
      ]);
      expect([round, ...answers.map((x) => x.status)]).toEqual([round, 200, 200]);
    }
  });
});
