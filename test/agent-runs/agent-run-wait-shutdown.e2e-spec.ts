import { startTestGateway, type TestGateway } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, type TestDatabase } from '@test/support/test-database';
import { heldAnswers } from '@test/support/scripted-model.server';
import { waitFor } from '@test/support/wait-for';
import { AGENT_LOOP_ENV, AgentLoopFixture } from './support/agent-loop.fixture';

/** A `wait: true` request in flight when its instance shuts down (a deploy) is answered, not cut. */
describe('a wait: true request while its gateway shuts down', () => {
  let db: TestDatabase;
  let gw: TestGateway;
  const fx = new AgentLoopFixture(() => gw);

  beforeAll(async () => {
    db = await createTestDatabaseUrl('sqlite');
    // A grace far longer than the answer below may take: only the shutdown itself may end the wait.
    gw = await startTestGateway(db.url, { ...AGENT_LOOP_ENV, SHUTDOWN_GRACE_MS: '45000' });
    await fx.start();
  });
  afterAll(async () => {
    await fx.stop();
    await db?.drop();
  });

  it('is answered 202 with the run RUNNING as the shutdown begins, instead of being held until SHUTDOWN_GRACE_MS and cut', async () => {
    const agent = await fx.agent([]);
    const sessionId = await fx.session(agent.id);
    const held = heldAnswers();
    fx.model.script(agent.model, { text: 'answered by the next instance', until: held.until });
    const answer = fx.send(sessionId, 'deploy-1', 'Hi').then(
      (res) => ({ status: res.status, body: res.body as Record<string, unknown> }),
      (err: Error) => ({ status: 0, body: { error: err.message } }),
    );
    await waitFor(() => fx.model.requestsFor(agent.model).length === 1, { description: 'the model to be asked' });

    const closed = gw.close();
    const res = await answer;
    await closed;
    held.release();

    expect(res).toMatchObject({ status: 202, body: { status: 'RUNNING', runId: expect.any(String) } });
  });
});
