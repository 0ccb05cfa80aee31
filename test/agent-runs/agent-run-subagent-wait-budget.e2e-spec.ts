import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { heldAnswers } from '@test/support/scripted-model.server';
import { AGENT_LOOP_ENV, AgentLoopFixture } from './support/agent-loop.fixture';

/** SUB_AGENT_CALL under a tool budget (TOOL_DEFAULT_TIMEOUT_MS) shorter than the wait it asks for. */
describeEachDialect('sub-agents: SUB_AGENT_CALL within the call budget', (dialect) => {
  const suite = gatewayForSuite(dialect, { ...AGENT_LOOP_ENV, TOOL_DEFAULT_TIMEOUT_MS: '1500' });
  const fx = new AgentLoopFixture(() => suite.gw);

  beforeAll(() => fx.start());
  afterAll(() => fx.stop());

  it("answers the child's status when the budget ends before the wait, not a timed-out failure", async () => {
    const ids = await fx.builtinToolIds();
    const helper = await fx.agent([]);
    const lead = await fx.agent([ids.SUB_AGENT_CALL, ids.CHECK_TASK_STATUS], { subAgentIds: [helper.id] });
    const helperName = (await suite.gw.http.get(`/api/v1/admin/agents/${helper.id}`).set(suite.gw.admin)).body.name;
    const child = heldAnswers();
    fx.model.script(
      lead.model,
      {
        toolCalls: [
          {
            id: 'delegate',
            name: 'SUB_AGENT_CALL',
            arguments: JSON.stringify({ agent: helperName, task: 'slow work', waitMs: 30_000 }),
          },
        ],
      },
      { text: 'It is still working.' },
    );
    fx.model.script(helper.model, { text: 'done at last', until: child.until });
    const sessionId = await fx.session(lead.id);

    try {
      expect((await fx.send(sessionId, 'm', 'delegate').expect(200)).body.status).toBe('COMPLETED');

      const tool = fx.model.requestsFor(lead.model)[1].body.messages.find((m) => m.role === 'tool');
      expect(tool!.content).not.toMatch(/^执行失败/);
      const brief = JSON.parse(String(tool!.content));
      expect(['QUEUED', 'RUNNING']).toContain(brief.status);
      expect(brief.taskId).toEqual(expect.any(String));
    } finally {
      child.release();
    }
  });
});
