import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';
import { startTestGateway, TestGateway } from '@test/support/gateway-test-app';
import { waitFor } from '@test/support/wait-for';
import { AGENT_LOOP_ENV, AgentLoopFixture } from './support/agent-loop.fixture';

/** A call budget longer than the longest wait SUB_AGENT_CALL takes (50 s): only the instance's stop can end it early. */
const ENV = { ...AGENT_LOOP_ENV, TOOL_DEFAULT_TIMEOUT_MS: '120000' };

/** SUB_AGENT_CALL waiting for its child when the gateway instance stops (a deploy). */
describeEachDialect('sub-agents: SUB_AGENT_CALL when its instance stops', (dialect) => {
  let db: TestDatabase;
  let gw: TestGateway;
  const fx = new AgentLoopFixture(() => gw);

  beforeAll(async () => {
    db = await createTestDatabaseUrl(dialect);
    gw = await startTestGateway(db.url, ENV);
    await fx.start();
  });
  afterAll(async () => {
    await gw?.close();
    await fx.stop();
    await db?.drop();
  });

  it('stops waiting at once, and the model reads the task as still running once another instance goes on', async () => {
    const { lead, helper, child } = await fx.slowSubAgentCall(50_000);
    const sessionId = await fx.session(lead.id);

    try {
      await fx.send(sessionId, 'm', 'delegate', false).expect(202);
      await waitFor(() => fx.model.requestsFor(helper.model).length > 0 || undefined);
      // The lead's worker waits for the child: closing the instance must not wait the 50 s out with it.
      await gw.close();
      gw = await startTestGateway(db.url, ENV);

      const tool = await waitFor(() =>
        fx.model.requestsFor(lead.model)[1]?.body.messages.find((m) => m.role === 'tool'),
      );
      expect(tool.content).not.toMatch(/^执行失败/);
      const brief = JSON.parse(String(tool.content));
      expect(['QUEUED', 'RUNNING']).toContain(brief.status);
      expect(brief.taskId).toEqual(expect.any(String));
    } finally {
      child.release();
    }
  }, 20_000);
});
