import { DataSource } from 'typeorm';
import { AgentToolBindingEntity } from '@app/modules/agent-config/agent-tool-binding.entity';
import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite, toolBody } from '@test/support/gateway-test-app';

/** A binding added while its agent is deleted: answered 404 or removed by the deletion, never left behind. */
describeEachDialect('binding writes racing the agent’s DELETE', (dialect) => {
  const suite = gatewayForSuite(dialect);

  it('leave no binding of a deleted agent', async () => {
    const toolId = (
      await suite.gw.http
        .post('/api/v1/admin/tools')
        .set(suite.gw.admin)
        .send(toolBody({ tenantId: 'orph' }))
        .expect(201)
    ).body.id as string;
    const bindings = suite.gw.app.get(DataSource).getRepository(AgentToolBindingEntity);
    for (let round = 0; round < 15; round++) {
      const agentId = (
        await suite.gw.http
          .post('/api/v1/admin/agents')
          .set(suite.gw.admin)
          .send({ name: `agent_${round}`, tenantId: 'orph' })
          .expect(201)
      ).body.id as string;
      const [added, replaced, deleted] = await Promise.all([
        suite.gw.http.post(`/api/v1/admin/agents/${agentId}/tools`).set(suite.gw.admin).send({ toolId }),
        suite.gw.http
          .put(`/api/v1/admin/agents/${agentId}/tools`)
          .set(suite.gw.admin)
          .send({ toolIds: [toolId] }),
        suite.gw.http.delete(`/api/v1/admin/agents/${agentId}`).set(suite.gw.admin),
      ]);
      expect([200, 404]).toContain(added.status);
      expect([200, 404]).toContain(replaced.status);
      expect(deleted.status).toBe(200);
      expect([round, await bindings.count({ where: { agentId } })]).toEqual([round, 0]);
    }
  });
});
