import { DataSource } from 'typeorm';
import { AgentRunLoop } from '@app/modules/agent-runs/agent-run.loop';
import type { AgentRunEntity } from '@app/modules/agent-runs/agent-run.entity';
import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { AGENT_LOOP_ENV, AgentLoopFixture } from './support/agent-loop.fixture';

/**
 * A worker that claimed a run and then stalled past the run's lease (a slow database, a paused process) while another
 * worker took the run over and finished it: what the stalled one does when it wakes must not change the session. It
 * marked the session RUNNING before any check of its lease, and nothing ever moved it back: the session took no
 * message again (409 RUN_IN_PROGRESS, with no run in progress).
 */
describeEachDialect('agent runs: a worker that lost its run while stalled leaves the session alone', (dialect) => {
  // A lease long enough that no renewal runs during the test: the take-over is made by expiring it by hand.
  const suite = gatewayForSuite(dialect, { ...AGENT_LOOP_ENV, TASK_WORKERS: '2', RUN_LEASE_MS: '120000' });
  const fx = new AgentLoopFixture(() => suite.gw);

  beforeAll(() => fx.start());
  afterAll(() => fx.stop());

  it('a stalled worker waking after the take-over finished the run does not mark the session RUNNING again', async () => {
    const { sessionId } = await fx.cancelOrderSession({ text: 'Cancelled o-9.' }, { text: 'the next message' });
    const stopped = await fx.send(sessionId, 'm1', 'Cancel o-9').expect(200);
    expect(stopped.body.status).toBe('INTERRUPTED');
    const runId: string = stopped.body.runId;

    // The first worker to claim the run once it is woken stalls before it does anything with it.
    const loop = suite.gw.app.get(AgentRunLoop);
    const drive = loop.drive.bind(loop);
    let release!: () => void;
    const stall = new Promise<void>((resolve) => (release = resolve));
    let claimed!: (owner: string) => void;
    const stalledClaim = new Promise<string>((resolve) => (claimed = resolve));
    let stalledDrive: Promise<unknown> | undefined;
    const spy = jest.spyOn(loop, 'drive').mockImplementation((run: AgentRunEntity, owner, signal, handBack) => {
      if (run.id !== runId || stalledDrive) return drive(run, owner, signal, handBack);
      claimed(owner);
      stalledDrive = stall.then(() => drive(run, owner, signal, handBack));
      return stalledDrive as ReturnType<typeof drive>;
    });
    try {
      await suite.gw.http
        .post(`/api/v1/sessions/${sessionId}/resume`)
        .set(fx.runtime)
        .send({ clientMessageId: 'r1', toolCallId: 'c1', decision: 'APPROVE' })
        .expect(200);
      const stalledOwner = await stalledClaim;

      // Its lease expires; the other worker takes the run over and finishes it.
      const db = suite.gw.app.get(DataSource);
      await db.query('UPDATE agent_run SET lease_until = 0 WHERE id = ? AND owner = ?', [runId, stalledOwner]);
      expect(await fx.untilRun(sessionId, runId, 'COMPLETED')).toMatchObject({ answer: 'Cancelled o-9.' });
      expect((await fx.sessionView(sessionId)).status).toBe('ACTIVE');
    } finally {
      release();
    }
    // The stalled worker wakes, finds its run lost, and stops.
    await stalledDrive;
    spy.mockRestore();

    expect((await fx.sessionView(sessionId)).status).toBe('ACTIVE');
    expect(await fx.run(sessionId, runId)).toMatchObject({ status: 'COMPLETED', answer: 'Cancelled o-9.' });
    expect(fx.requestsTo('/cancel_order')).toHaveLength(1);
    // The session takes the next message.
    const next = await fx.send(sessionId, 'm2', 'Anything else?').expect(200);
    expect(next.body).toMatchObject({ status: 'COMPLETED', answer: 'the next message' });
  });
});
