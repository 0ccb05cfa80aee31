import { BatchRunner } from '@app/modules/loop-acting/acting/batch-runner';
import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { waitFor } from '@test/support/wait-for';
import { AGENT_LOOP_ENV, AgentLoopFixture } from './support/agent-loop.fixture';

/**
 * A run's act and another request that interrupts its session at the same moment (the runtime's own act asking for an
 * approval; the dead-owner sweep raising an UNKNOWN_OUTCOME): the run's request loses the session's compare-and-set.
 * It waits for the human like any run whose act finds the session interrupted, and goes on after the decision; it
 * FAILED, the model's call answered "not run", as if the gateway had broken.
 */
describeEachDialect('agent runs: an act of the run that loses its interrupt to another request', (dialect) => {
  const suite = gatewayForSuite(dialect, AGENT_LOOP_ENV);
  const fx = new AgentLoopFixture(() => suite.gw);

  beforeAll(() => fx.start());
  afterAll(() => fx.stop());

  it("waits for the human when the runtime's own act interrupted the session first, then continues", async () => {
    const { sessionId } = await fx.cancelOrderSession();

    // The run's act stops right before it interrupts the session for c1's approval.
    const batches = suite.gw.app.get(BatchRunner);
    const interrupt = batches.interrupt.bind(batches);
    let reached!: () => void;
    const atInterrupt = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const spy = jest.spyOn(batches, 'interrupt').mockImplementation(async (ctx, ...rest) => {
      if (ctx.runId && ctx.session.id === sessionId) {
        reached();
        await held;
      }
      return interrupt(ctx, ...rest);
    });
    let runId: string;
    try {
      runId = (await fx.send(sessionId, 'm1', 'Cancel o-9', false).expect(202)).body.runId;
      await atInterrupt;
      // Meanwhile the runtime's own call asks for an approval: the session waits for it.
      const { iteration } = await fx.sessionView(sessionId);
      const own = await suite.gw.http
        .post(`/api/v1/sessions/${sessionId}/act`)
        .set(fx.runtime)
        .send({ iteration, toolCalls: [{ id: 'rt-1', name: 'cancel_order', arguments: { q: 'o-1' } }] })
        .expect(200);
      expect(own.body).toMatchObject({ status: 'INTERRUPTED', hitlRequest: { toolCallId: 'rt-1' } });
    } finally {
      release();
    }
    const stopped = await waitFor(
      async () => {
        const r = await fx.run(sessionId, runId);
        return r.status === 'RUNNING' ? null : r;
      },
      { timeoutMs: 15_000, description: 'the run to stop' },
    );
    spy.mockRestore();
    expect(stopped).toMatchObject({ status: 'INTERRUPTED', hitlRequest: { toolCallId: 'rt-1' } });

    // The runtime's request decided, the run goes on: its own call asks for its approval, then runs once.
    await suite.gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(fx.runtime)
      .send({ clientMessageId: 'r1', toolCallId: 'rt-1', decision: 'REJECT' })
      .expect(200);
    await waitFor(async () => ((await fx.sessionView(sessionId)).hitlRequest?.toolCallId === 'c1' ? true : null), {
      timeoutMs: 15_000,
      description: "the run's own request",
    });
    await suite.gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(fx.runtime)
      .send({ clientMessageId: 'r2', toolCallId: 'c1', decision: 'APPROVE' })
      .expect(200);
    expect(await fx.untilRun(sessionId, runId, 'COMPLETED')).toMatchObject({ answer: 'Cancelled o-9.' });
    expect(fx.requestsTo('/cancel_order').filter((r) => r.headers['x-session-id'] === sessionId)).toHaveLength(1);
  });
});
