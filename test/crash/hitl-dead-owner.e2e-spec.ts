import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';
import { GatewayProcess, startGatewayProcess } from '@test/support/gateway-process';
import { waitFor } from '@test/support/wait-for';
import {
  act,
  expectStatus,
  openSession,
  resume,
  seedAgent,
  SeededAgent,
  ToolCall,
} from './support/gateway-runtime.seed';
import { CrashRemoteServer } from './support/crash-remote.server';

/*
 * Issue 9 (#9, #11) with real SIGKILLs: a gateway dies after STARTED (during an act, and during an admin's
 * decision); a restarted gateway's sweep lists the first in the HITL queue without any resubmit, and the
 * same admin decision sent again never runs the second blindly.
 */

const LEASE_MS = 1000;
const TENANT = 'crash-hitl';

const toolBody = (name: string, sideEffect: string, path: string) => ({
  name,
  description: `dead-owner ${sideEffect} tool`,
  parameters: { type: 'object', properties: { ref: { type: 'string' } }, required: ['ref'] },
  serviceType: 'HTTP',
  httpMethod: 'POST',
  endpoint: path,
  sideEffect,
});

describeEachDialect('a side-effecting call whose gateway was killed reaches the HITL queue and an admin', (dialect) => {
  let db: TestDatabase;
  let remote: CrashRemoteServer;
  let seeded: SeededAgent;
  let restarted: GatewayProcess;
  const sweptCall: ToolCall = { id: 'call-swept', name: 'ledger_write', arguments: { ref: `${dialect}-swept` } };
  const approvedCall: ToolCall = {
    id: 'call-approved',
    name: 'ledger_risky',
    arguments: { ref: `${dialect}-approved` },
  };
  const resumedCall: ToolCall = { id: 'call-resumed', name: 'ledger_risky', arguments: { ref: `${dialect}-resumed` } };
  let sweptSession: string;
  let approvedSession: string;
  let resumedSession: string;
  let approvalId: string;
  const decide = (requestId: string, body: Record<string, unknown>) =>
    restarted.call('POST', `/api/v1/admin/hitl/${requestId}/decision`, body, restarted.admin);
  const pendingOf = async (sessionId: string) =>
    expectStatus(
      await restarted.call('GET', '/api/v1/admin/hitl?status=PENDING&pageSize=100', undefined, restarted.admin),
      200,
      'queue',
    ).items.filter((i: { sessionId: string }) => i.sessionId === sessionId);

  beforeAll(async () => {
    remote = await new CrashRemoteServer().start();
    db = await createTestDatabaseUrl(dialect);
    const env = { JOURNAL_LEASE_MS: String(LEASE_MS) };
    // Dies after STARTED of an act's call.
    const actKilled = await startGatewayProcess({
      databaseUrl: db.url,
      instanceId: 'killed-in-act',
      env: { ...env, GATEWAY_FAULT_INJECTION: 'after-started:ledger_write' },
    });
    seeded = await seedAgent(actKilled, TENANT, [
      toolBody('ledger_write', 'SIDE_EFFECT', remote.url('/ledger')),
      toolBody('ledger_risky', 'HIGH_RISK', remote.url('/ledger')),
    ]);
    sweptSession = await openSession(actKilled, seeded);
    approvedSession = await openSession(actKilled, seeded);
    resumedSession = await openSession(actKilled, seeded);
    expect(
      await act(actKilled, seeded.runtime, sweptSession, 1, [sweptCall]).then(
        () => false,
        () => true,
      ),
    ).toBe(true);
    await actKilled.exited;

    // Dies after STARTED of the call an admin approved.
    const decisionKilled = await startGatewayProcess({
      databaseUrl: db.url,
      instanceId: 'killed-in-decision',
      env: { ...env, GATEWAY_FAULT_INJECTION: 'after-started:ledger_risky' },
    });
    const interrupted = expectStatus(
      await act(decisionKilled, seeded.runtime, approvedSession, 1, [approvedCall]),
      200,
      'act on the HIGH_RISK tool',
    );
    expect(interrupted.hitlRequest.requestType).toBe('TOOL_APPROVAL');
    approvalId = interrupted.hitlRequest.id;
    const broke = await decisionKilled
      .call(
        'POST',
        `/api/v1/admin/hitl/${approvalId}/decision`,
        { decision: 'APPROVE', reviewer: 'alice' },
        decisionKilled.admin,
      )
      .then(
        () => false,
        () => true,
      );
    expect(broke).toBe(true);
    expect((await decisionKilled.exited).signal).toBe('SIGKILL');

    // Dies after a runtime's resume saved its APPROVE, before the call's STARTED (the runtime never gets an answer).
    const resumeKilled = await startGatewayProcess({
      databaseUrl: db.url,
      instanceId: 'killed-in-resume',
      env: { ...env, GATEWAY_FAULT_INJECTION: 'before-started:ledger_risky' },
    });
    expectStatus(await act(resumeKilled, seeded.runtime, resumedSession, 1, [resumedCall]), 200, 'act to resume');
    const resumeBroke = await resumeKilled
      .call(
        'POST',
        `/api/v1/sessions/${resumedSession}/resume`,
        { clientMessageId: 'lost-with-the-crash', decision: 'APPROVE' },
        seeded.runtime,
      )
      .then(
        () => false,
        () => true,
      );
    expect(resumeBroke).toBe(true);
    expect((await resumeKilled.exited).signal).toBe('SIGKILL');

    restarted = await startGatewayProcess({
      databaseUrl: db.url,
      instanceId: `restarted-${dialect}`,
      env: { ...env, JOURNAL_SWEEP_INTERVAL_MS: '200' },
    });
  }, 120_000);

  afterAll(async () => {
    await restarted?.kill();
    await remote?.stop();
    await db?.drop();
  });

  it("the sweep lists the dead act's call as UNKNOWN_OUTCOME without any resubmit; an admin's RETRY runs it once", async () => {
    const [request] = await waitFor(
      async () => {
        const items = await pendingOf(sweptSession);
        return items.length > 0 ? items : null;
      },
      { timeoutMs: 15_000, intervalMs: 100, description: 'the sweep to raise the dead call' },
    );
    expect(request).toMatchObject({
      requestType: 'UNKNOWN_OUTCOME',
      toolCallId: 'call-swept',
      toolName: 'ledger_write',
      toolParams: { ref: `${dialect}-swept` },
    });
    expect(remote.hits(`${dialect}-swept`)).toBe(0);
    const session = expectStatus(
      await restarted.call('GET', `/api/v1/sessions/${sweptSession}`, undefined, seeded.runtime),
      200,
      'session',
    );
    expect(session).toMatchObject({ status: 'INTERRUPTED', hitlRequest: { id: request.id } });
    expect((await act(restarted, seeded.runtime, sweptSession, 2, [sweptCall])).body.error.code).toBe(
      'SESSION_INTERRUPTED',
    );

    const retried = await decide(request.id, { decision: 'RETRY', reviewer: 'ops' });
    expect(retried.status).toBe(200);
    expect(retried.body.results[0]).toMatchObject({ toolCallId: 'call-swept', status: 'COMPLETED' });
    const again = await act(restarted, seeded.runtime, sweptSession, 2, [sweptCall]);
    expect(again.body.results[0]).toMatchObject({ status: 'COMPLETED', reused: true });
    expect(remote.hits(`${dialect}-swept`)).toBe(1);
  });

  it('the same admin decision sent again after the kill finishes it without running the call blindly: UNKNOWN_OUTCOME, then RETRY runs it once', async () => {
    // The sweep leaves this session alone: it already waits for the (decided) approval.
    const repeated = await waitFor(
      async () => {
        const res = await decide(approvalId, { decision: 'APPROVE', reviewer: 'alice' });
        return res.status === 200 ? res : null;
      },
      { timeoutMs: 15_000, intervalMs: 200, description: "the dead decision's claim and lease to expire" },
    );
    expect(repeated.body.status).toBe('INTERRUPTED');
    expect(repeated.body.hitlRequest).toMatchObject({ requestType: 'UNKNOWN_OUTCOME', toolCallId: 'call-approved' });
    expect(remote.hits(`${dialect}-approved`)).toBe(0);
    expect((await decide(approvalId, { decision: 'APPROVE', reviewer: 'alice' })).body).toEqual(repeated.body);
    expect(await pendingOf(approvedSession)).toHaveLength(1);

    const retried = await decide(repeated.body.hitlRequest.id, { decision: 'RETRY', reviewer: 'alice' });
    expect(retried.body.results[0]).toMatchObject({ toolCallId: 'call-approved', status: 'COMPLETED' });
    expect(remote.hits(`${dialect}-approved`)).toBe(1);
  });

  it('a runtime that lost the clientMessageId of the killed resume resumes with a new one and the same decision: the saved APPROVE runs once', async () => {
    const pending = await pendingOf(resumedSession);
    expect(pending).toEqual([]); // decided (by the killed resume), though the session still waits on it
    const body = { clientMessageId: 'after-the-crash', toolCallId: 'call-resumed', decision: 'APPROVE' };
    const resumed = await waitFor(
      async () => {
        const res = await resume(restarted, seeded.runtime, resumedSession, body);
        if (res.status !== 409 || res.body.error.code !== 'RESUME_IN_PROGRESS') return res;
        return null;
      },
      { timeoutMs: 15_000, intervalMs: 200, description: "the killed resume's claim to go stale" },
    );
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ status: 'COMPLETED' });
    expect(resumed.body.results[0]).toMatchObject({ toolCallId: 'call-resumed', status: 'COMPLETED' });
    expect(remote.hits(`${dialect}-resumed`)).toBe(1);
    const session = expectStatus(
      await restarted.call('GET', `/api/v1/sessions/${resumedSession}`, undefined, seeded.runtime),
      200,
      'session',
    );
    expect(session).toMatchObject({ status: 'ACTIVE', hitlPending: false });
    const lost = await resume(restarted, seeded.runtime, resumedSession, {
      ...body,
      clientMessageId: 'lost-with-the-crash',
    });
    expect(lost.body).toEqual(resumed.body);
    expect(remote.hits(`${dialect}-resumed`)).toBe(1);
  });
});
