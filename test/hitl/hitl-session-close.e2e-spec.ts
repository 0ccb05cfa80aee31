import { describeEachDialect } from '@test/support/test-database';
import { createKey, gatewayForSuite, sessionWithTool } from '@test/support/gateway-test-app';
import { HitlRequestsRepository } from '@app/modules/hitl/requests/hitl-requests.repository';
import { AgentSessionRepository } from '@app/modules/loop-acting/sessions/agent-session.repository';
import { ToolCallLogService } from '@app/modules/executors/tool-call-log/tool-call-log.service';

/**
 * Closing a session that waits for a human (DELETE /sessions/{id} while INTERRUPTED) ends its pending request: the
 * review queue stopped listing it as PENDING only never (nobody could decide it any more: the session waits for
 * nothing), the pending gauge counted it, and retention kept the closed session for good because of it.
 */
describeEachDialect('closing a session with a pending HITL request', (dialect) => {
  const suite = gatewayForSuite(dialect);

  /** A session of a new runtime key, INTERRUPTED on its one call (c1) to the HIGH_RISK tool `toolName`. */
  async function interruptedSession(toolName: string) {
    const { gw } = suite;
    const runtime = await createKey(gw, 'acme', 'runtime');
    const { sessionId } = await sessionWithTool(gw, runtime, 'acme', { name: toolName, sideEffect: 'HIGH_RISK' });
    const acted = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'c1', name: toolName, arguments: { q: 'all' } }] })
      .expect(200);
    expect(acted.body.status).toBe('INTERRUPTED');
    return { gw, runtime, sessionId, acted };
  }

  it('leaves no PENDING request behind, and records who closed it', async () => {
    const { gw, runtime, sessionId, acted } = await interruptedSession('wipe_disk');
    const requestId = acted.body.hitlRequest.id as string;

    await gw.http.delete(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200);

    const pending = await gw.http.get('/api/v1/admin/hitl?status=PENDING').set(gw.admin).expect(200);
    expect(pending.body.items.map((i: { id: string }) => i.id)).not.toContain(requestId);
    const all = await gw.http.get('/api/v1/admin/hitl').set(gw.admin).expect(200);
    const item = all.body.items.find((i: { id: string }) => i.id === requestId);
    expect(item).toMatchObject({ status: 'DECIDED', decision: 'REJECT' });
    expect(item.decidedBy).toMatch(/session closed/);
    const events = await gw.http.get(`/api/v1/sessions/${sessionId}/events`).set(runtime).expect(200);
    expect(events.body.items.map((e: { type: string }) => e.type)).toContain('hitl.decided');
    // An admin who still tries is told it was decided; nothing runs.
    const late = await gw.http
      .post(`/api/v1/admin/hitl/${requestId}/decision`)
      .set(gw.admin)
      .send({ decision: 'APPROVE', reviewer: 'alice' })
      .expect(409);
    expect(late.body.error.code).toBe('HITL_ALREADY_DECIDED');
    // The runtime's resume is told the session is closed, not sent to /act (which refuses a closed session too).
    const resumed = await gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(runtime)
      .send({ clientMessageId: 'after-close' })
      .expect(409);
    expect(resumed.body.error.code).toBe('NO_PENDING_REQUEST');
    expect(resumed.body.error.message).toMatch(/is closed.*start a new session/);
    expect(resumed.body.error.message).not.toContain('/act');
  });

  it("records the call the close rejected, as a resume's REJECT does: journal outcome and tool-log row, never run", async () => {
    const { gw, runtime, sessionId } = await interruptedSession('shred_files');

    await gw.http.delete(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200);

    const journal = await gw.http.get(`/api/v1/admin/sessions/${sessionId}/journal`).set(gw.admin).expect(200);
    expect(journal.body.items).toEqual([
      expect.objectContaining({
        toolCallId: 'c1',
        state: 'FAILED',
        resultStatus: 'REJECTED',
        errorClass: 'REJECTED',
        attempts: 0,
      }),
    ]);
    await gw.app.get(ToolCallLogService).flush();
    const logged = await gw.http.get(`/api/v1/admin/tool-calls?sessionId=${sessionId}`).set(gw.admin).expect(200);
    const rows = (logged.body.items as { toolCallId: string; status: string }[]).map(
      (r) => `${r.toolCallId} ${r.status}`,
    );
    expect(rows.sort()).toEqual(['c1 PENDING_APPROVAL', 'c1 REJECTED']);
    expect(logged.body.items.find((r: { status: string }) => r.status === 'REJECTED')).toMatchObject({
      toolName: 'shred_files',
      errorClass: 'REJECTED',
      attempts: 0,
      resultPreview: expect.stringContaining('The session was closed before a decision'),
    });
    // Closing again adds nothing: the close's REJECT was written once.
    await gw.http.delete(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200);
    await gw.app.get(ToolCallLogService).flush();
    const again = await gw.http.get(`/api/v1/admin/tool-calls?sessionId=${sessionId}`).set(gw.admin).expect(200);
    expect(again.body.items).toHaveLength(2);
  });

  it('leaves no PENDING request behind when the process dies right after the close committed', async () => {
    const { gw, runtime, sessionId, acted } = await interruptedSession('erase_all');
    const requestId = acted.body.hitlRequest.id as string;
    // Nothing after the commit that makes the session CLOSED runs.
    const sessions = gw.app.get(AgentSessionRepository);
    const commit = sessions.compareAndSet.bind(sessions);
    const crash = jest.spyOn(sessions, 'compareAndSet').mockImplementation(async (...args) => {
      const moved = await commit(...args);
      if (args[0] === sessionId && args[2].status === 'CLOSED') throw new Error('killed after the close committed');
      return moved;
    });
    try {
      await gw.http.delete(`/api/v1/sessions/${sessionId}`).set(runtime).expect(500);
    } finally {
      crash.mockRestore();
    }
    // Closing again finds the session closed and does nothing more: the request must not wait in the queue for good.
    await gw.http.delete(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200);
    const all = await gw.http.get('/api/v1/admin/hitl').set(gw.admin).expect(200);
    expect(all.body.items.find((i: { id: string }) => i.id === requestId)).toMatchObject({
      status: 'DECIDED',
      decision: 'REJECT',
    });
  });

  it('a resume that read the session before the close cannot decide its request after the close: nothing runs', async () => {
    const { gw, runtime, sessionId, acted } = await interruptedSession('drop_db');

    // The resume has read the session (INTERRUPTED) and waits; the close moves the session to CLOSED; the resume
    // then decides before the close has ended the request.
    const requests = gw.app.get(HitlRequestsRepository);
    const decide = requests.decide.bind(requests);
    const findDecidedUnder = requests.findDecidedUnder.bind(requests);
    let closeDeciding!: () => void;
    const closeIsDeciding = new Promise<void>((resolve) => (closeDeciding = resolve));
    let resumeDecided!: () => void;
    const resumeHasDecided = new Promise<void>((resolve) => (resumeDecided = resolve));
    const spies = [
      jest.spyOn(requests, 'findDecidedUnder').mockImplementation(async (...args) => {
        await closeIsDeciding;
        return findDecidedUnder(...args);
      }),
      jest.spyOn(requests, 'decide').mockImplementation(async (id, record, ...rest) => {
        if (!record.clientMessageId.startsWith('session-closed:')) {
          try {
            return await decide(id, record, ...rest);
          } finally {
            resumeDecided();
          }
        }
        closeDeciding();
        // Bounded: where the close's request decision cannot be overtaken, the resume waits for it instead.
        await Promise.race([resumeHasDecided, new Promise((resolve) => setTimeout(resolve, 1_000))]);
        return decide(id, record, ...rest);
      }),
    ];
    try {
      const resume = gw.http
        .post(`/api/v1/sessions/${sessionId}/resume`)
        .set(runtime)
        .send({ clientMessageId: 'approve-late', decision: 'APPROVE' })
        .then((r) => r);
      await gw.http.delete(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200);
      const resumed = await resume;
      expect(resumed.status).toBe(409);
      expect(resumed.body.error.code).toBe('HITL_ALREADY_DECIDED');
    } finally {
      spies.forEach((spy) => spy.mockRestore());
    }
    // The call was never run: its one journal row is the close's REJECT.
    const journal = await gw.http.get(`/api/v1/admin/sessions/${sessionId}/journal`).set(gw.admin).expect(200);
    expect(journal.body.items).toEqual([
      expect.objectContaining({ toolCallId: 'c1', state: 'FAILED', errorClass: 'REJECTED', attempts: 0 }),
    ]);
    const all = await gw.http.get('/api/v1/admin/hitl').set(gw.admin).expect(200);
    const item = all.body.items.find((i: { id: string }) => i.id === acted.body.hitlRequest.id);
    expect(item).toMatchObject({ status: 'DECIDED', decision: 'REJECT' });
  });

  it('a REJECT saved just before the close records the rejected call in the journal (FAILED, REJECTED)', async () => {
    const { gw, runtime, sessionId } = await interruptedSession('purge_logs');
    // The close lands right after the transaction that saves the decision (the compare-and-set that changes nothing
    // of the session but its version) commits, before the resume goes on.
    const sessions = gw.app.get(AgentSessionRepository);
    const cas = sessions.compareAndSet.bind(sessions);
    const closeFirst = jest.spyOn(sessions, 'compareAndSet').mockImplementation(async (...args) => {
      const moved = await cas(...args);
      const [id, , changes, alongside] = args;
      if (id === sessionId && Object.keys(changes).length === 0 && alongside)
        await gw.http.delete(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200);
      return moved;
    });
    try {
      const resumed = await gw.http
        .post(`/api/v1/sessions/${sessionId}/resume`)
        .set(runtime)
        .send({ clientMessageId: 'reject-at-close', decision: 'REJECT', message: 'not now' })
        .expect(200);
      expect(resumed.body.results[0]).toMatchObject({ toolCallId: 'c1', status: 'REJECTED', isError: true });
      expect(closeFirst.mock.calls.filter(([, , changes]) => Object.keys(changes).length === 0)).toHaveLength(1);
    } finally {
      closeFirst.mockRestore();
    }
    const journal = await gw.http.get(`/api/v1/admin/sessions/${sessionId}/journal`).set(gw.admin).expect(200);
    expect(journal.body.items).toEqual([
      expect.objectContaining({ toolCallId: 'c1', state: 'FAILED', resultStatus: 'REJECTED', errorClass: 'REJECTED' }),
    ]);
    const session = await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200);
    expect(session.body.status).toBe('CLOSED');
  });
});
