import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';
import type { GatewayExit, GatewayProcess } from '@test/support/gateway-process';
import { CrashRemoteServer } from './support/crash-remote.server';
import { expectStatus, resume, SeededAgent } from './support/gateway-runtime.seed';
import { gatewayStarter, wireSessionAwaitingApproval } from './support/wire-approval.fixture';
import { untilArmedGatewayDied, untilArmedGatewayKilledItself } from './support/armed-request';
import { eventsOnce, readEvents } from './support/session-events.read';

/*
 * Closing a session that waits on a HITL request decides the request REJECT in the close's transaction; its
 * `hitl.decided` was written a moment after that commit. The gateway is killed in that moment: the restarted gateway
 * writes it, once, so a runtime replaying the stream learns the request will never be carried out. And a decision a
 * resume saved and died before reporting or carrying out, then the session closed: the close reports it.
 */

/** Short, so the restarted gateway's outbox round (every JOURNAL_LEASE_MS) finds the kept event soon. */
const LEASE_MS = 1_000;
const TENANT = 'crash-close-decided';

describeEachDialect('a session closed by a gateway killed before writing hitl.decided', (dialect) => {
  let db: TestDatabase;
  let remote: CrashRemoteServer;
  let restarted: GatewayProcess | undefined;
  let seeded: SeededAgent;
  let sessionId: string;
  let requestId: string;
  let died: GatewayExit | null;

  const start = gatewayStarter(() => db.url, 'close-decided');

  beforeAll(async () => {
    remote = await new CrashRemoteServer().start();
    db = await createTestDatabaseUrl(dialect);
    ({ seeded, sessionId, requestId } = await wireSessionAwaitingApproval(
      await start('seed'),
      TENANT,
      remote,
      dialect,
    ));

    const armed = await start('armed', {
      GATEWAY_FAULT_INJECTION: 'before-event-write:hitl.decided',
      JOURNAL_LEASE_MS: '60000',
    });
    died = await untilArmedGatewayKilledItself(armed, () =>
      armed.call('DELETE', `/api/v1/sessions/${sessionId}`, undefined, seeded.runtime),
    );
  }, 120_000);

  afterAll(async () => {
    await restarted?.stop();
    await remote?.stop();
    await db?.drop();
  });

  it('the armed gateway died after committing the close, before writing hitl.decided', async () => {
    expect(died?.signal).toBe('SIGKILL');
    restarted = await start('restarted', { JOURNAL_LEASE_MS: String(LEASE_MS) });
    const session = expectStatus(
      await restarted.call('GET', `/api/v1/sessions/${sessionId}`, undefined, seeded.runtime),
      200,
      'read session',
    );
    expect(session).toMatchObject({ status: 'CLOSED', hitlPending: false });
  }, 60_000);

  it('the restarted gateway writes the REJECT of the closed request, once', async () => {
    const events = await eventsOnce(restarted!, seeded.runtime, sessionId, 'hitl.decided');
    expect(events.map((e) => e.type)).toEqual(['hitl.requested', 'hitl.decided']);
    expect(events[1].data).toEqual({
      requestId,
      requestType: 'TOOL_APPROVAL',
      toolCallId: 'wire-1',
      decision: 'REJECT',
      decidedBy: expect.stringMatching(/^session closed \(key /),
    });
    expect(remote.hits(dialect)).toBe(0);
  }, 60_000);
});

describeEachDialect('a session closed after a resume saved its decision and died before reporting it', (dialect) => {
  let db: TestDatabase;
  let remote: CrashRemoteServer;
  let restarted: GatewayProcess | undefined;
  let seeded: SeededAgent;
  let sessionId: string;
  let requestId: string;
  let died: { requestBroke: boolean; exit: GatewayExit };

  // Long: no recovery round carries the saved decision out before the close.
  const start = gatewayStarter(() => db.url, 'saved-decision', { JOURNAL_LEASE_MS: '60000' });

  beforeAll(async () => {
    remote = await new CrashRemoteServer().start();
    db = await createTestDatabaseUrl(dialect);
    ({ seeded, sessionId, requestId } = await wireSessionAwaitingApproval(
      await start('seed'),
      `${TENANT}-saved`,
      remote,
      dialect,
    ));

    // Killed where the resume's hitl.decided would be written: the APPROVE is saved, neither reported nor carried out.
    const armed = await start('armed', { GATEWAY_FAULT_INJECTION: 'before-event-write:hitl.decided' });
    died = await untilArmedGatewayDied(armed, () =>
      resume(armed, seeded.runtime, sessionId, { clientMessageId: 'approve-1', decision: 'APPROVE' }),
    );
    restarted = await start('restarted');
  }, 120_000);

  afterAll(async () => {
    await restarted?.stop();
    await remote?.stop();
    await db?.drop();
  });

  it('the armed gateway died after saving the decision, before reporting it', async () => {
    expect({ broke: died.requestBroke, signal: died.exit.signal }).toEqual({ broke: true, signal: 'SIGKILL' });
    expect((await readEvents(restarted!, seeded.runtime, sessionId)).map((e) => e.type)).toEqual(['hitl.requested']);
  });

  it('the close reports the saved decision, once; nothing of it runs', async () => {
    const closed = await restarted!.call('DELETE', `/api/v1/sessions/${sessionId}`, undefined, seeded.runtime);
    expect(expectStatus(closed, 200, 'close')).toMatchObject({ status: 'CLOSED' });
    const events = await eventsOnce(restarted!, seeded.runtime, sessionId, 'hitl.decided', 5_000);
    expect(events.map((e) => e.type)).toEqual(['hitl.requested', 'hitl.decided']);
    expect(events[1].data).toEqual({
      requestId,
      requestType: 'TOOL_APPROVAL',
      toolCallId: 'wire-1',
      decision: 'APPROVE',
      decidedBy: expect.any(String),
    });
    expect(remote.hits(dialect)).toBe(0);
  }, 60_000);
});
