import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { AGENT_LOOP_ENV, AgentLoopFixture } from './support/agent-loop.fixture';

/**
 * What a client reads of a run right after its resume: the decided run is queued again only at the next
 * RUN_POLL_INTERVAL_MS (a minute here, so the test reads it before), and it no longer waits for the request decided.
 */
describeEachDialect('agent runs: a run read between its decision and its waking', (dialect) => {
  const suite = gatewayForSuite(dialect, { ...AGENT_LOOP_ENV, RUN_POLL_INTERVAL_MS: '60000' });
  const fx = new AgentLoopFixture(() => suite.gw);

  beforeAll(() => fx.start());
  afterAll(() => fx.stop());

  it('reads RUNNING without the request just decided, on GET and on the message sent again with wait', async () => {
    const { sessionId } = await fx.cancelOrderSession();
    const stopped = await fx.send(sessionId, 'm1', 'Cancel o-9').expect(200);
    expect(stopped.body).toMatchObject({ status: 'INTERRUPTED', hitlRequest: { toolCallId: 'c1' } });

    await suite.gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(fx.runtime)
      .send({ clientMessageId: 'r1', toolCallId: 'c1', decision: 'APPROVE' })
      .expect(200);

    const read = await fx.run(sessionId, stopped.body.runId);
    expect(read).toEqual({ runId: stopped.body.runId, status: 'RUNNING', iterations: 1 });
    // Sent again with wait: still going, so 202 as a message whose run has not stopped.
    const again = await fx.send(sessionId, 'm1', 'Cancel o-9').expect(202);
    expect(again.body).toEqual(read);
  });
});
