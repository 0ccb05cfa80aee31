import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { waitFor } from '@test/support/wait-for';
import { AGENT_LOOP_ENV, AgentLoopFixture } from './support/agent-loop.fixture';

/**
 * A run stopped for a human goes back to the queue when the decision arrives, whatever the instance's workers are
 * doing: the waking waited for the first worker to be between two runs, however long the run it worked took.
 */
describeEachDialect('agent runs: a decided run is queued again while the workers are busy', (dialect) => {
  const suite = gatewayForSuite(dialect, { ...AGENT_LOOP_ENV, TASK_WORKERS: '1' });
  const fx = new AgentLoopFixture(() => suite.gw);

  beforeAll(() => fx.start());
  afterAll(() => fx.stop());

  it('queues the run again once its decision arrives, while the only worker works a run whose model is slow', async () => {
    const { sessionId } = await fx.cancelOrderSession();
    const stopped = await fx.send(sessionId, 'm1', 'Cancel o-9').expect(200);
    expect(stopped.body.status).toBe('INTERRUPTED');
    // The only worker takes a run whose model does not answer.
    const busy = await fx.agent([]);
    fx.model.script(busy.model, { hang: true });
    const busySession = await fx.session(busy.id);
    await fx.send(busySession, 'busy', 'take your time', false).expect(202);
    await waitFor(() => fx.model.requestsFor(busy.model).length > 0 || null, { description: 'the busy run' });

    try {
      await suite.gw.http
        .post(`/api/v1/sessions/${sessionId}/resume`)
        .set(fx.runtime)
        .send({ clientMessageId: 'r1', toolCallId: 'c1', decision: 'APPROVE' })
        .expect(200);

      // Back in the queue (shown RUNNING), waiting for a worker rather than for the busy one to end its run.
      await fx.untilRun(sessionId, stopped.body.runId, 'RUNNING');
    } finally {
      await suite.gw.http.delete(`/api/v1/sessions/${busySession}`).set(fx.runtime).expect(200);
    }
    expect(await fx.untilRun(sessionId, stopped.body.runId, 'COMPLETED')).toMatchObject({ answer: 'Cancelled o-9.' });
  });
});
