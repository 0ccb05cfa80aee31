import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';
import type { GatewayExit, GatewayProcess } from '@test/support/gateway-process';
import { CrashRemoteServer } from './support/crash-remote.server';
import { act, expectStatus, SeededAgent } from './support/gateway-runtime.seed';
import { gatewayStarter, WIRE_TOOL as TOOL, wireSession } from './support/wire-approval.fixture';
import { untilArmedGatewayKilledItself } from './support/armed-request';
import { eventsOnce } from './support/session-events.read';

/*
 * An act that needs approval commits the HITL request and the session's INTERRUPTED; its `hitl.requested` was written
 * a moment after that commit. The gateway is killed in that moment: the restarted gateway writes it, once, so a
 * runtime replaying the stream learns the call waits for a human.
 */

/** Short, so the restarted gateway's outbox round (every JOURNAL_LEASE_MS) finds the kept event soon. */
const LEASE_MS = 1_000;
const TENANT = 'crash-hitl-requested';

describeEachDialect('a HITL request committed by a gateway killed before writing hitl.requested', (dialect) => {
  let db: TestDatabase;
  let remote: CrashRemoteServer;
  let restarted: GatewayProcess | undefined;
  let seeded: SeededAgent;
  let sessionId: string;
  let died: GatewayExit | null;

  const start = gatewayStarter(() => db.url, 'hitl-requested');

  beforeAll(async () => {
    remote = await new CrashRemoteServer().start();
    db = await createTestDatabaseUrl(dialect);
    ({ seeded, sessionId } = await wireSession(await start('seed'), TENANT, remote));

    const armed = await start('armed', {
      GATEWAY_FAULT_INJECTION: 'before-event-write:hitl.requested',
      JOURNAL_LEASE_MS: '60000',
    });
    died = await untilArmedGatewayKilledItself(armed, () =>
      act(armed, seeded.runtime, sessionId, 1, [{ id: 'wire-1', name: TOOL, arguments: { ref: `${dialect}-1` } }]),
    );
  }, 120_000);

  afterAll(async () => {
    await restarted?.stop();
    await remote?.stop();
    await db?.drop();
  });

  it('the armed gateway died after committing the request, before writing its event', async () => {
    expect(died?.signal).toBe('SIGKILL');
    restarted = await start('restarted', { JOURNAL_LEASE_MS: String(LEASE_MS) });
    const session = expectStatus(
      await restarted.call('GET', `/api/v1/sessions/${sessionId}`, undefined, seeded.runtime),
      200,
      'read session',
    );
    expect(session).toMatchObject({ status: 'INTERRUPTED', hitlPending: true });
  }, 60_000);

  it('the restarted gateway writes hitl.requested of that request, once', async () => {
    const session = expectStatus(
      await restarted!.call('GET', `/api/v1/sessions/${sessionId}`, undefined, seeded.runtime),
      200,
      'read session',
    );
    const events = await eventsOnce(restarted!, seeded.runtime, sessionId, 'hitl.requested');
    expect(events).toEqual([
      expect.objectContaining({
        seq: 1,
        type: 'hitl.requested',
        data: {
          requestId: session.hitlRequest.id,
          requestType: 'TOOL_APPROVAL',
          toolCallId: 'wire-1',
          toolName: TOOL,
        },
      }),
    ]);
    expect(remote.hits(`${dialect}-1`)).toBe(0);
  }, 60_000);
});
