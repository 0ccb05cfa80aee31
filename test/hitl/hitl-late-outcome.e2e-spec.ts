import { DataSource } from 'typeorm';
import { describeEachDialect } from '@test/support/test-database';
import { agentWithTool, createKey, gatewayForSuite } from '@test/support/gateway-test-app';
import { callFingerprint } from '@app/modules/loop-acting/journal/journal-fingerprint';
import { canonicalJson } from '@app/common/canonical-json';

describeEachDialect('an UNKNOWN_OUTCOME whose outcome came in before the decision', (dialect) => {
  const suite = gatewayForSuite(dialect);
  let runtime: { Authorization: string };
  let agentId: string;

  beforeAll(async () => {
    const gw = suite.gw;
    runtime = await createKey(gw, 'acme', 'runtime');
    ({ agentId } = await agentWithTool(gw, 'acme', { name: 'write_note', sideEffect: 'SIDE_EFFECT' }, { name: 'ops' }));
  });

  /**
   * A new session whose call `id` an owner left STARTED with an expired lease (it stalled, it did not die), submitted
   * again: the act raises an UNKNOWN_OUTCOME request.
   */
  async function unknownOutcomeOfStalledCall(
    id: string,
    args: Record<string, unknown>,
  ): Promise<{ sessionId: string; id: string; args: Record<string, unknown>; requestId: string }> {
    const gw = suite.gw;
    const sessionId = (
      await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u1', permissions: [] }).expect(201)
    ).body.id as string;
    const past = Date.now() - 60_000;
    await gw.app.get(DataSource).query(
      `INSERT INTO tool_call_journal (tenant_id, session_id, tool_call_id, tool_name, tool_id, fingerprint, arguments_json, side_effect, state, result_status, attempts, iteration, owner, lease_expires_at, started_at, finished_at, duration_ms, is_error, error_class, content, total_chars, result_chunks, inline_limit)
       VALUES (?, ?, ?, ?, NULL, ?, ?, 'SIDE_EFFECT', 'STARTED', NULL, 0, 1, 'stalled-instance', ?, ?, NULL, NULL, 0, NULL, NULL, 0, 0, 20000)`,
      ['acme', sessionId, id, 'write_note', callFingerprint('write_note', args), canonicalJson(args), past, past],
    );
    const res = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id, name: 'write_note', arguments: args }] })
      .expect(200);
    expect(res.body.hitlRequest.requestType).toBe('UNKNOWN_OUTCOME');
    return { sessionId, id, args, requestId: res.body.hitlRequest.id as string };
  }

  it.each(['REJECT', 'MARK_DONE'])(
    '%s answers with the outcome the journal holds, as a resubmit of the call does',
    async (decision) => {
      const gw = suite.gw;
      const ds = gw.app.get(DataSource);
      const { sessionId, id, args } = await unknownOutcomeOfStalledCall(`late-${decision}`, { q: 'late' });
      // The stalled owner comes back and records what the remote answered (its finish: owner and STARTED match).
      await ds.query(
        `UPDATE tool_call_journal SET state = 'COMPLETED', result_status = 'COMPLETED', attempts = 1, finished_at = ?, duration_ms = 5, content = ?, total_chars = ?
          WHERE session_id = ? AND tool_call_id = ? AND owner = 'stalled-instance' AND state = 'STARTED'`,
        [Date.now(), 'note written', 'note written'.length, sessionId, id],
      );
      const decided = await gw.http
        .post(`/api/v1/sessions/${sessionId}/resume`)
        .set(runtime)
        .send({ clientMessageId: `d-${id}`, decision, message: 'I think it did not happen' })
        .expect(200);
      const resubmitted = await gw.http
        .post(`/api/v1/sessions/${sessionId}/act`)
        .set(runtime)
        .send({ iteration: 2, toolCalls: [{ id, name: 'write_note', arguments: args }] })
        .expect(200);
      expect(resubmitted.body.results[0]).toMatchObject({ status: 'COMPLETED', content: 'note written' });
      // The model is never told "not run" (or the reviewer's guess) for a call that ran and answered.
      expect(decided.body.results[0]).toMatchObject({ toolCallId: id, status: 'COMPLETED', content: 'note written' });
    },
  );
  it.each(['REJECT', 'MARK_DONE'])(
    '%s while the stalled owner is back and still running the call is 409 TOOL_CALL_IN_PROGRESS; decided once it answered',
    async (decision) => {
      const gw = suite.gw;
      const ds = gw.app.get(DataSource);
      const { sessionId, id, requestId } = await unknownOutcomeOfStalledCall(`alive-${decision}`, {
        q: 'alive',
      });
      // The stalled owner comes back: it renews its lease, the call still runs.
      await ds.query(
        `UPDATE tool_call_journal SET lease_expires_at = ? WHERE session_id = ? AND tool_call_id = ? AND owner = 'stalled-instance'`,
        [Date.now() + 60_000, sessionId, id],
      );
      const early = await gw.http
        .post(`/api/v1/sessions/${sessionId}/resume`)
        .set(runtime)
        .send({ clientMessageId: `d-${id}`, decision, message: 'I think it did not happen' })
        .expect(409);
      expect(early.body.error.code).toBe('TOOL_CALL_IN_PROGRESS');
      // Nothing was decided: the request still waits, and the running call's outcome is not overwritten.
      const queue = await gw.http.get('/api/v1/admin/hitl?status=PENDING').set(gw.admin).expect(200);
      expect(queue.body.items.map((i: { id: string }) => i.id)).toContain(requestId);
      await ds.query(
        `UPDATE tool_call_journal SET state = 'COMPLETED', result_status = 'COMPLETED', attempts = 1, finished_at = ?, duration_ms = 5, content = ?, total_chars = ?
          WHERE session_id = ? AND tool_call_id = ? AND owner = 'stalled-instance' AND state = 'STARTED'`,
        [Date.now(), 'note written', 'note written'.length, sessionId, id],
      );
      const [row] = await ds.query(
        'SELECT state, content FROM tool_call_journal WHERE session_id = ? AND tool_call_id = ?',
        [sessionId, id],
      );
      expect(row).toMatchObject({ state: 'COMPLETED', content: 'note written' });
      const decided = await gw.http
        .post(`/api/v1/sessions/${sessionId}/resume`)
        .set(runtime)
        .send({ clientMessageId: `d-${id}`, decision, message: 'I think it did not happen' })
        .expect(200);
      expect(decided.body.results[0]).toMatchObject({ toolCallId: id, status: 'COMPLETED', content: 'note written' });
    },
  );
});
