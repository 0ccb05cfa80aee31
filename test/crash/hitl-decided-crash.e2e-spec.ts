import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';
import type { GatewayExit, GatewayProcess } from '@test/support/gateway-process';
import { waitFor } from '@test/support/wait-for';
import { CrashRemoteServer } from './support/crash-remote.server';
import { expectStatus, resume, SeededAgent } from './support/gateway-runtime.seed';
import { gatewayStarter, wireSessionAwaitingApproval } from './support/wire-approval.fixture';
import { untilArmedGatewayKilledItself } from './support/armed-request';
import { eventsOnce, readEvents } from './support/session-events.read';
import { expireLeases, holdResumeClaims } from './support/expire-leases';
import { keptEventCount } from './support/kept-events';

/*
 * A resume saves its APPROVE, and the gateway is killed before it wrote the request's `hitl.decided` (and before it ran
 * the call). While nothing carries the decision out (its claim still counts as alive), the restarted gateway writes
 * `hitl.decided` all the same, kept with the decision: a runtime replaying the stream learns the request was decided.
 * Carried out later by the recovery job, the decision still has that one event.
 */

/** Short, so the restarted gateway's outbox round and recovery job (every JOURNAL_LEASE_MS) come soon. */
const LEASE_MS = 1_000;
const TENANT = 'crash-hitl-decided';

describeEachDialect('a decision saved by a resume killed before writing hitl.decided', (dialect) => {
  let db: TestDatabase;
  let remote: CrashRemoteServer;
  let restarted: GatewayProcess | undefined;
  let seeded: SeededAgent;
  let sessionId: string;
  let requestId: string;
  let died: GatewayExit | null;
  const ref = `${dialect}-decided`;

  const start = gatewayStarter(() => db.url, 'hitl-decided');
  const decidedEvents = async () =>
    (await readEvents(restarted!, seeded.runtime, sessionId)).filter((e) => e.type === 'hitl.decided');
  const readSession = async () =>
    expectStatus(
      await restarted!.call('GET', `/api/v1/sessions/${sessionId}`, undefined, seeded.runtime),
      200,
      'read session',
    );

  beforeAll(async () => {
    remote = await new CrashRemoteServer().start();
    db = await createTestDatabaseUrl(dialect);
    ({ seeded, sessionId, requestId } = await wireSessionAwaitingApproval(await start('seed'), TENANT, remote, ref));

    const armed = await start('armed', {
      GATEWAY_FAULT_INJECTION: 'before-event-write:hitl.decided',
      JOURNAL_LEASE_MS: '60000',
    });
    died = await untilArmedGatewayKilledItself(armed, () =>
      resume(armed, seeded.runtime, sessionId, { clientMessageId: 'approve-1', decision: 'APPROVE' }),
    );
  }, 120_000);

  afterAll(async () => {
    await restarted?.stop();
    await remote?.stop();
    await db?.drop();
  });

  it('the armed gateway died after saving the decision, before writing its event and before the call', () => {
    expect(died?.signal).toBe('SIGKILL');
    expect(remote.hits(ref)).toBe(0);
  });

  it('the restarted gateway writes hitl.decided while nothing carries the decision out', async () => {
    await holdResumeClaims(db.url);
    restarted = await start('restarted', { JOURNAL_LEASE_MS: String(LEASE_MS) });
    const events = await eventsOnce(restarted, seeded.runtime, sessionId, 'hitl.decided');
    expect(events.filter((e) => e.type === 'hitl.decided')).toEqual([
      expect.objectContaining({
        data: {
          requestId,
          requestType: 'TOOL_APPROVAL',
          toolCallId: 'wire-1',
          decision: 'APPROVE',
          decidedBy: expect.stringContaining('runtime'),
        },
      }),
    ]);
    expect(await readSession()).toMatchObject({ status: 'INTERRUPTED', hitlPending: true });
    expect(remote.hits(ref)).toBe(0);
  }, 60_000);

  it('carried out later by the recovery job, the decision still has one hitl.decided', async () => {
    await expireLeases(db.url);
    await waitFor(async () => ((await readSession()).status === 'ACTIVE' ? true : null), {
      timeoutMs: 30_000,
      description: 'the recovery job to carry the saved decision out',
      intervalMs: 200,
    });
    expect(remote.hits(ref)).toBe(1);
    // The carry-out kept its own hitl.decided too: written (its once-key left it out), its outbox row removed.
    await waitFor(async () => ((await keptEventCount(db.url)) === 0 ? true : null), {
      timeoutMs: 30_000,
      description: 'the outbox to be empty',
      intervalMs: 200,
    });
    expect(await decidedEvents()).toEqual([expect.objectContaining({ data: expect.objectContaining({ requestId }) })]);
  }, 60_000);
});
