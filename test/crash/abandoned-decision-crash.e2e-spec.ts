import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';
import type { GatewayExit, GatewayProcess } from '@test/support/gateway-process';
import { waitFor } from '@test/support/wait-for';
import { CrashRemoteServer } from './support/crash-remote.server';
import { expectStatus, resume, SeededAgent } from './support/gateway-runtime.seed';
import { gatewayStarter, WIRE_TOOL as TOOL, wireSessionAwaitingApproval } from './support/wire-approval.fixture';
import { untilArmedGatewayDied } from './support/armed-request';

/*
 * A resume saved its APPROVE and the process was killed before it ran the approved call. Nobody sends the resume
 * again: the restarted gateway carries the saved decision out on its own once the dead resume's claim is stale, runs
 * the call once, and the resume sent later with the same clientMessageId gets that outcome.
 */

/** Short, so the restarted gateway's recovery job (every JOURNAL_LEASE_MS) finds the dead claim stale soon. */
const LEASE_MS = 1_000;
const TENANT = 'crash-abandoned';

describeEachDialect('a decision saved by a resume killed before carrying it out', (dialect) => {
  let db: TestDatabase;
  let remote: CrashRemoteServer;
  let restarted: GatewayProcess | undefined;
  let seeded: SeededAgent;
  let sessionId: string;
  let died: { requestBroke: boolean; exit: GatewayExit };
  const ref = `${dialect}-abandoned`;

  const start = gatewayStarter(() => db.url, 'abandoned');

  beforeAll(async () => {
    remote = await new CrashRemoteServer().start();
    db = await createTestDatabaseUrl(dialect);
    ({ seeded, sessionId } = await wireSessionAwaitingApproval(await start('seed'), TENANT, remote, ref));

    // Killed where the approved call would start: the decision is saved, nothing of it ran.
    const armed = await start('armed', {
      GATEWAY_FAULT_INJECTION: `before-started:${TOOL}`,
      JOURNAL_LEASE_MS: '60000',
    });
    died = await untilArmedGatewayDied(armed, () =>
      resume(armed, seeded.runtime, sessionId, { clientMessageId: 'approve-1', decision: 'APPROVE' }),
    );
  }, 120_000);

  afterAll(async () => {
    await restarted?.stop();
    await remote?.stop();
    await db?.drop();
  });

  it('the armed gateway died after saving the decision and before the call', () => {
    expect({ broke: died.requestBroke, signal: died.exit.signal }).toEqual({ broke: true, signal: 'SIGKILL' });
    expect(remote.hits(ref)).toBe(0);
  });

  it('the restarted gateway carries the decision out unasked, once; the resume sent again gets its outcome', async () => {
    restarted = await start('restarted', { JOURNAL_LEASE_MS: String(LEASE_MS) });
    const session = await waitFor(
      async () => {
        const res = await restarted!.call('GET', `/api/v1/sessions/${sessionId}`, undefined, seeded.runtime);
        return expectStatus(res, 200, 'read session').status === 'ACTIVE' ? res.body : null;
      },
      { timeoutMs: 30_000, description: 'the session to move on from the saved decision' },
    );
    expect(session).toMatchObject({ status: 'ACTIVE', hitlPending: false });
    expect(remote.hits(ref)).toBe(1);

    const again = await resume(restarted, seeded.runtime, sessionId, {
      clientMessageId: 'approve-1',
      decision: 'APPROVE',
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'COMPLETED' });
    expect(again.body.results).toEqual([expect.objectContaining({ toolCallId: 'wire-1', status: 'COMPLETED' })]);
    expect(remote.hits(ref)).toBe(1);

    // A client reading the events sees the decision once, whichever process recorded it.
    const events = await restarted.call('GET', `/api/v1/sessions/${sessionId}/events`, undefined, seeded.runtime);
    const decided = expectStatus(events, 200, 'read events').items.filter(
      (e: { type: string }) => e.type === 'hitl.decided',
    );
    expect(decided).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ toolCallId: 'wire-1', decision: 'APPROVE' }) }),
    ]);
  }, 60_000);

  it('a runtime that lost the key resumes with a new one: the same decision gets the outcome, another is refused', async () => {
    const outcome = await resume(restarted!, seeded.runtime, sessionId, {
      clientMessageId: 'approve-again',
      toolCallId: 'wire-1',
      decision: 'APPROVE',
    });
    expect(outcome.status).toBe(200);
    expect(outcome.body.results).toEqual([expect.objectContaining({ toolCallId: 'wire-1', status: 'COMPLETED' })]);
    // Stored under the new key too: sent again, the same answer.
    const repeated = await resume(restarted!, seeded.runtime, sessionId, {
      clientMessageId: 'approve-again',
      toolCallId: 'wire-1',
      decision: 'APPROVE',
    });
    expect(repeated.body).toEqual(outcome.body);
    expect(remote.hits(ref)).toBe(1);

    const other = await resume(restarted!, seeded.runtime, sessionId, {
      clientMessageId: 'reject-late',
      toolCallId: 'wire-1',
      decision: 'REJECT',
    });
    expect(other.status).toBe(409);
    expect(remote.hits(ref)).toBe(1);
  });
});
