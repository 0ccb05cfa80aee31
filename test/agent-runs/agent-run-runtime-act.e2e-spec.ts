import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { waitFor } from '@test/support/wait-for';
import { AGENT_LOOP_ENV, AgentLoopFixture } from './support/agent-loop.fixture';

/** Runs are woken after a decision by the worker's poll: a slow poll leaves the runtime time to act first. */
describeEachDialect(
  "a runtime's own act at a higher iteration on the session of a run that waits for a human",
  (dialect) => {
    const suite = gatewayForSuite(dialect, { ...AGENT_LOOP_ENV, RUN_POLL_INTERVAL_MS: '1500' });
    const fx = new AgentLoopFixture(() => suite.gw);
    let lookup: { id: string };
    let cancel: { id: string };

    beforeAll(async () => {
      await fx.start();
      lookup = await fx.tool('lookup_order', { httpMethod: 'GET' });
      cancel = await fx.tool('cancel_order', { sideEffect: 'SIDE_EFFECT' });
    });
    afterAll(() => fx.stop());

    const interruptedRun = async () => {
      const agent = await fx.agent([lookup.id, cancel.id], { sideEffectPolicy: 'APPROVE_SIDE_EFFECTS' });
      const sessionId = await fx.session(agent.id);
      fx.model.script(
        agent.model,
        { toolCalls: [{ id: 'c1', name: 'cancel_order', arguments: '{"q":"o-9"}' }] },
        { text: 'Cancelled o-9.' },
      );
      const res = await fx.send(sessionId, 'm1', 'Cancel o-9').expect(200);
      expect(res.body).toMatchObject({ status: 'INTERRUPTED', hitlRequest: { toolCallId: 'c1' } });
      return { sessionId, runId: res.body.runId as string };
    };
    const act = (sessionId: string, iteration: number, id: string) =>
      suite.gw.http
        .post(`/api/v1/sessions/${sessionId}/act`)
        .set(fx.runtime)
        .send({ iteration, toolCalls: [{ id, name: 'lookup_order', arguments: { q: 'o-1' } }] });
    const resume = (sessionId: string) =>
      suite.gw.http
        .post(`/api/v1/sessions/${sessionId}/resume`)
        .set(fx.runtime)
        .send({ clientMessageId: 'ok', toolCallId: 'c1', decision: 'APPROVE' })
        .expect(200);

    it('is refused with 409 SESSION_INTERRUPTED while the session waits, and changes nothing', async () => {
      const { sessionId, runId } = await interruptedRun();
      const before = await fx.sessionView(sessionId);

      const refused = await act(sessionId, 50, 'rt-1').expect(409);

      expect(refused.body.error.code).toBe('SESSION_INTERRUPTED');
      expect(await fx.sessionView(sessionId)).toEqual(before);
      await resume(sessionId);
      expect(await fx.untilRun(sessionId, runId, 'COMPLETED')).toMatchObject({ answer: 'Cancelled o-9.' });
    });

    it('made right after the decision, before the run wakes, does not fail the run: it continues to its answer', async () => {
      const { sessionId, runId } = await interruptedRun();
      await resume(sessionId);

      const own = await act(sessionId, 5, 'rt-2').expect(200);
      expect(own.body).toMatchObject({ status: 'COMPLETED', results: [{ toolCallId: 'rt-2', status: 'COMPLETED' }] });

      const run = await waitFor(
        async () => {
          const r = await fx.run(sessionId, runId);
          return ['COMPLETED', 'FAILED'].includes(r.status) ? r : null;
        },
        { timeoutMs: 15_000, description: 'the run to stop' },
      );
      expect(run).toMatchObject({ status: 'COMPLETED', answer: 'Cancelled o-9.' });
      // The approved call ran once, by the resume; the run's act reused its result.
      expect(fx.requestsTo('/cancel_order').filter((r) => r.headers['x-session-id'] === sessionId)).toHaveLength(1);
      expect((await fx.sessionView(sessionId)).status).toBe('ACTIVE');
    });
  },
);
