import { describeEachDialect } from '@test/support/test-database';
import { createKey, gatewayForSuite, sessionWithTool, SHELL_TOOL_FIELDS } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import { waitFor } from '@test/support/wait-for';
import { DataSource } from 'typeorm';
import { callFingerprint } from '@app/modules/loop-acting/journal/journal-fingerprint';
import { canonicalJson } from '@app/common/canonical-json';

/**
 * DELETE /sessions/{id} while a batch of that session runs: the call already running finishes and keeps its result;
 * no later call of the batch starts (each claim is written only while the session is not CLOSED), and they answer
 * NOT_RUN. Before, the batch went on and started them all, side effects included, in a session the user had closed.
 */
describeEachDialect('closing a session while one of its batches runs', (dialect) => {
  const suite = gatewayForSuite(dialect, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
  let remote: RecordingHttpServer;
  let release!: () => void;
  /** The paths whose first call was held. */
  const held = new Set<string>();

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    remote.handler = async (req, res) => {
      // The first call to each path (one per test) waits for release().
      if (!held.has(req.url)) {
        held.add(req.url);
        await new Promise<void>((resolve) => (release = resolve));
      }
      res.end(JSON.stringify({ done: req.body }));
    };
  });
  afterAll(async () => {
    await remote?.stop();
  });

  it('runs no call of the batch after the close; the call running at the close keeps its outcome', async () => {
    const { gw } = suite;
    const runtime = await createKey(gw, 'acme', 'runtime');
    const { sessionId } = await sessionWithTool(gw, runtime, 'acme', {
      name: 'send_mail',
      sideEffect: 'SIDE_EFFECT',
      endpoint: remote.url('/hold'),
    });
    const acting = gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({
        iteration: 1,
        toolCalls: ['m1', 'm2', 'm3'].map((id) => ({ id, name: 'send_mail', arguments: { q: id } })),
      })
      .then((r) => r);
    await waitFor(() => remote.requests.length === 1, { timeoutMs: 10_000, description: 'the first call to run' });

    await gw.http.delete(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200);
    release();
    const acted = await acting;

    expect(acted.status).toBe(200);
    expect(acted.body.results.map((r: { toolCallId: string; status: string }) => [r.toolCallId, r.status])).toEqual([
      ['m1', 'COMPLETED'],
      ['m2', 'NOT_RUN'],
      ['m3', 'NOT_RUN'],
    ]);
    expect(acted.body.results[1].content).toMatch(/Not run: the session was closed/);
    expect(remote.requests).toHaveLength(1);
    const journal = await gw.http.get(`/api/v1/admin/sessions/${sessionId}/journal`).set(gw.admin).expect(200);
    expect(journal.body.items.map((e: { toolCallId: string; state: string }) => [e.toolCallId, e.state])).toEqual([
      ['m1', 'COMPLETED'],
    ]);
    // The same batch again is refused as a whole, as any act on a closed session.
    const again = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'm2', name: 'send_mail', arguments: { q: 'm2' } }] })
      .expect(409);
    expect(again.body.error.code).toBe('SESSION_CLOSED');
    expect(remote.requests).toHaveLength(1);
  });

  it('answers NOT_RUN, not 409, for a call after the close that would ask for approval; the call before keeps its result', async () => {
    const { gw } = suite;
    const runtime = await createKey(gw, 'acme', 'runtime');
    const { sessionId } = await sessionWithTool(gw, runtime, 'acme', {
      name: 'shell_run',
      endpoint: remote.url('/shell'),
      ...SHELL_TOOL_FIELDS,
    });
    const seen = remote.requests.length;
    const acting = gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({
        iteration: 1,
        toolCalls: [
          { id: 'ls-1', name: 'shell_run', arguments: { command: 'ls' } },
          { id: 'rm-2', name: 'shell_run', arguments: { command: 'rm -rf ./old' } },
        ],
      })
      .then((r) => r);
    await waitFor(() => remote.requests.length === seen + 1, { timeoutMs: 10_000, description: 'the first call' });

    await gw.http.delete(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200);
    release();
    const acted = await acting;

    expect(acted.status).toBe(200);
    expect(acted.body.results.map((r: { toolCallId: string; status: string }) => [r.toolCallId, r.status])).toEqual([
      ['ls-1', 'COMPLETED'],
      ['rm-2', 'NOT_RUN'],
    ]);
    expect(acted.body.hitlRequest).toBeUndefined();
    const queue = await gw.http.get('/api/v1/admin/hitl').set(gw.admin).expect(200);
    expect(queue.body.items.filter((i: { sessionId: string }) => i.sessionId === sessionId)).toEqual([]);
  });

  it('does not run again, after the close, a later call of the batch left STARTED by a dead owner', async () => {
    const { gw } = suite;
    const runtime = await createKey(gw, 'acme', 'runtime');
    const { sessionId } = await sessionWithTool(gw, runtime, 'acme', {
      name: 'lookup',
      sideEffect: 'READ_ONLY',
      endpoint: remote.url('/lookup'),
    });
    // ro-2 as a process that died while running it left it: STARTED, its lease long expired (READ_ONLY: runs again).
    const lease = Date.now() - 60_000;
    await gw.app.get(DataSource).query(
      `INSERT INTO tool_call_journal (tenant_id, session_id, tool_call_id, tool_name, tool_id, fingerprint, arguments_json, side_effect, state, result_status, attempts, iteration, owner, lease_expires_at, started_at, finished_at, duration_ms, is_error, error_class, content, total_chars, result_chunks, inline_limit)
       VALUES ('acme', ?, 'ro-2', 'lookup', NULL, ?, ?, 'READ_ONLY', 'STARTED', NULL, 0, 1, 'dead-instance', ?, ?, NULL, NULL, 0, NULL, NULL, 0, 0, 20000)`,
      [sessionId, callFingerprint('lookup', { q: 'ro-2' }), canonicalJson({ q: 'ro-2' }), lease, lease - 1000],
    );
    const acting = gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({
        iteration: 1,
        toolCalls: ['ro-1', 'ro-2'].map((id) => ({ id, name: 'lookup', arguments: { q: id } })),
      })
      .then((r) => r);
    await waitFor(() => remote.requests.some((r) => r.url === '/lookup'), {
      timeoutMs: 10_000,
      description: 'the first call to run',
    });

    await gw.http.delete(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200);
    release();
    const acted = await acting;

    expect(acted.status).toBe(200);
    expect(acted.body.results.map((r: { toolCallId: string; status: string }) => [r.toolCallId, r.status])).toEqual([
      ['ro-1', 'COMPLETED'],
      ['ro-2', 'NOT_RUN'],
    ]);
    expect(remote.requests.filter((r) => r.url === '/lookup')).toHaveLength(1);
  });
});
