import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { AGENT_LOOP_ENV, AgentLoopFixture } from './support/agent-loop.fixture';

/** SUB_AGENT_CALL under a tool budget (TOOL_DEFAULT_TIMEOUT_MS) shorter than the wait it asks for. */
describeEachDialect('sub-agents: SUB_AGENT_CALL within the call budget', (dialect) => {
  const suite = gatewayForSuite(dialect, { ...AGENT_LOOP_ENV, TOOL_DEFAULT_TIMEOUT_MS: '1500' });
  const fx = new AgentLoopFixture(() => suite.gw);

  beforeAll(() => fx.start());
  afterAll(() => fx.stop());

  it("answers the child's status when the budget ends before the wait, not a timed-out failure", async () => {
    const { lead, child } = await fx.slowSubAgentCall(30_000);
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
