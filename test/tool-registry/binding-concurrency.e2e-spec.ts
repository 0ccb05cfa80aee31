import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite, toolBody } from '@test/support/gateway-test-app';
import { AGENT_TOOL_BINDINGS_MAX } from '@app/modules/agent-config/agent-config.dto';
import { AgentToolBindingEntity } from '@app/modules/agent-config/agent-tool-binding.entity';

/**
 * Two admins (or a retrying client) change one agent's bindings at once. Adding a tool that is already bound is a
 * no-op answered with the agent; replacing the set twice leaves one of the two sets. Neither is an error about the
 * agent's name, nor a 500.
 */
describeEachDialect('concurrent binding writes of one agent', (dialect) => {
  const suite = gatewayForSuite(dialect);
  const newTool = async () =>
    (
      await suite.gw.http
        .post('/api/v1/admin/tools')
        .set(suite.gw.admin)
        .send(toolBody({ tenantId: 'bind' }))
        .expect(201)
    ).body.id as string;
  const newAgent = async () =>
    (
      await suite.gw.http
        .post('/api/v1/admin/agents')
        .set(suite.gw.admin)
        .send({ name: `agent_${Math.random().toString(36).slice(2)}`, tenantId: 'bind' })
        .expect(201)
    ).body.id as string;

  it('the same tool added twice at once is bound once, both answers 200', async () => {
    const [toolId, agentId] = [await newTool(), await newAgent()];
    const add = () => suite.gw.http.post(`/api/v1/admin/agents/${agentId}/tools`).set(suite.gw.admin).send({ toolId });
    const answers = await Promise.all([add(), add(), add()]);
    expect(answers.map((a) => [a.status, a.body.error?.code])).toEqual([
      [200, undefined],
      [200, undefined],
      [200, undefined],
    ]);
    const agent = await suite.gw.http.get(`/api/v1/admin/agents/${agentId}`).set(suite.gw.admin).expect(200);
    expect(agent.body.toolIds).toEqual([toolId]);
  });

  it('two replacements at once leave one of the two sets, both answers 200', async () => {
    const [a, b, c, agentId] = [await newTool(), await newTool(), await newTool(), await newAgent()];
    const put = (toolIds: string[]) =>
      suite.gw.http.put(`/api/v1/admin/agents/${agentId}/tools`).set(suite.gw.admin).send({ toolIds });
    const answers = await Promise.all([put([a, b]), put([b, c]), put([a, b])]);
    expect(answers.map((x) => [x.status, x.body.error?.code])).toEqual([
      [200, undefined],
      [200, undefined],
      [200, undefined],
    ]);
    const agent = await suite.gw.http.get(`/api/v1/admin/agents/${agentId}`).set(suite.gw.admin).expect(200);
    expect([[a, b].sort(), [b, c].sort()]).toContainEqual([...agent.body.toolIds].sort());
  });

  it('an agent bound to AGENT_TOOL_BINDINGS_MAX tools takes no more by POST (409), only by PUT of the whole set', async () => {
    const [kept, added, agentId] = [await newTool(), await newTool(), await newAgent()];
    // All but one of the bindings written directly: creating thousands of tools through the API would take minutes.
    const filler = Array.from({ length: AGENT_TOOL_BINDINGS_MAX - 1 }, (_, i) => ({
      agentId,
      toolId: randomUUID(),
      createdAt: i,
    }));
    await suite.gw.app.get(DataSource).getRepository(AgentToolBindingEntity).insert(filler);
    const add = (toolId: string) =>
      suite.gw.http.post(`/api/v1/admin/agents/${agentId}/tools`).set(suite.gw.admin).send({ toolId });

    await add(kept).expect(200); // the last place
    const refused = await add(added).expect(409);
    expect(refused.body.error).toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining(`bound to ${AGENT_TOOL_BINDINGS_MAX} tools, the most an agent may have`),
    });
    await add(kept).expect(200); // already bound: still a no-op, not a refusal

    await suite.gw.http
      .put(`/api/v1/admin/agents/${agentId}/tools`)
      .set(suite.gw.admin)
      .send({ toolIds: [kept, added] })
      .expect(200);
    const agent = await suite.gw.http.get(`/api/v1/admin/agents/${agentId}`).set(suite.gw.admin).expect(200);
    expect([...agent.body.toolIds].sort()).toEqual([kept, added].sort());
  });
});
