import { request as httpRequest, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { HotSql } from '@app/database/hot-sql';
import { SessionEventsStore } from '@app/modules/session-events/session-events.store';
import { ToolCallJournalRepository } from '@app/modules/loop-acting/journal/tool-call-journal.repository';
import { recordStatements } from '@test/support/statement-counter';
import { createTestDatabaseUrl, TestDatabase } from '@test/support/test-database';
import { createKey, sessionWithTool, startTestGateway, TestGateway } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import { waitFor } from '@test/support/wait-for';

describe('journal leases of a call that outlives JOURNAL_LEASE_MS', () => {
  let db: TestDatabase;
  let gw: TestGateway;
  let remote: RecordingHttpServer;
  let runtime: { Authorization: string };
  let sessionId: string;
  /** The remote's open answers, in arrival order: each call runs until the test answers it. */
  const held: ServerResponse[] = [];

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    remote.handler = (_req, res) => void held.push(res);
    db = await createTestDatabaseUrl('sqlite');
    // Renewed every 500 ms: a renewal a loaded machine delays by up to a second still comes in time.
    gw = await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', JOURNAL_LEASE_MS: '1500' });
    runtime = await createKey(gw, 'acme', 'runtime');
    ({ sessionId } = await sessionWithTool(gw, runtime, 'acme', {
      name: 'slow_write',
      sideEffect: 'SIDE_EFFECT',
      endpoint: remote.url('/slow'),
    }));
  });
  afterAll(async () => {
    for (const res of held) res.destroy();
    await gw?.close();
    await remote?.stop();
    await db?.drop();
  });

  it('keeps renewing the lease while the call runs, so a resubmission is IN_PROGRESS, not UNKNOWN_OUTCOME', async () => {
    const call = { iteration: 1, toolCalls: [{ id: 'long-1', name: 'slow_write', arguments: { q: 'x' } }] };
    const first = gw.http.post(`/api/v1/sessions/${sessionId}/act`).set(runtime).send(call);
    const started = first.then((r) => r);
    await waitFor(() => remote.requests.length === 1, {
      timeoutMs: 5_000,
      description: 'the call to reach the remote',
    });
    // The lease the claim took first runs out while the call still runs: only renewals keep the entry in progress.
    const [claimed] = await gw.app
      .get(DataSource)
      .query(`SELECT lease_expires_at FROM tool_call_journal WHERE session_id = ? AND tool_call_id = 'long-1'`, [
        sessionId,
      ]);
    const pastFirstLease = Number(claimed.lease_expires_at) + 100 - Date.now();
    await new Promise((r) => setTimeout(r, Math.max(0, pastFirstLease)));
    const again = await gw.http.post(`/api/v1/sessions/${sessionId}/act`).set(runtime).send(call).expect(409);
    expect(again.body.error.code).toBe('TOOL_CALL_IN_PROGRESS');
    held[0].end('{"done":true}');
    const done = await started;
    expect(done.status).toBe(200);
    expect(done.body.results[0]).toMatchObject({ status: 'COMPLETED', content: '{"done":true}' });
    expect(remote.requests).toHaveLength(1);
  });

  it('a call whose entry another owner finished meanwhile answers its client, but a reuse gets what the journal holds', async () => {
    const ds = gw.app.get(DataSource);
    const call = { iteration: 2, toolCalls: [{ id: 'long-2', name: 'slow_write', arguments: { q: 'y' } }] };
    const first = gw.http.post(`/api/v1/sessions/${sessionId}/act`).set(runtime).send(call);
    const started = first.then((r) => r);
    await waitFor(() => remote.requests.length === 2, {
      timeoutMs: 5_000,
      description: 'the call to reach the remote',
    });
    // This instance stalled past its lease; a human's RETRY on another instance took the entry over and finished it.
    const retried = 'the result of the retry';
    await ds.query(
      `UPDATE tool_call_journal SET owner = 'other-instance', state = 'COMPLETED', result_status = 'COMPLETED', attempts = 1,
              finished_at = ?, duration_ms = 5, content = ?, total_chars = ?
        WHERE session_id = ? AND tool_call_id = 'long-2' AND state = 'STARTED'`,
      [Date.now(), retried, retried.length, sessionId],
    );
    held[1].end('{"done":true}');
    const done = await started;
    expect(done.body.results[0]).toMatchObject({ status: 'COMPLETED', reused: false });
    const again = await gw.http.post(`/api/v1/sessions/${sessionId}/act`).set(runtime).send(call).expect(200);
    expect(again.body.results[0]).toMatchObject({ status: 'COMPLETED', reused: true, content: retried });
    const page = await gw.http.get(`/api/v1/sessions/${sessionId}/tool-results/long-2`).set(runtime).expect(200);
    expect(page.body.content).toBe(retried);
  });

  it('renews the leases of every in-flight call with one statement, and only those its claims hold', async () => {
    const journal = gw.app.get(ToolCallJournalRepository);
    const keys = ['renew-1', 'renew-2', 'renew-3'].map((toolCallId) => ({ tenantId: 'acme', sessionId, toolCallId }));
    for (const [i, key] of keys.entries()) {
      const entry = {
        ...key,
        toolName: 'slow_write',
        toolId: null,
        fingerprint: `f${i}`,
        argumentsJson: '{}',
        sideEffect: 'SIDE_EFFECT',
        iteration: 1,
        owner: i < 2 ? 'renewing-instance' : 'another-instance',
        leaseExpiresAt: 1_000,
        inlineLimit: 100,
      };
      expect(await journal.claim(entry, Date.now())).toBe('CLAIMED');
    }
    const recording = recordStatements(gw.app.get(DataSource), gw.app.get(HotSql));
    try {
      // The claims of the renewing attempts: the third entry is held by another claim and keeps its lease.
      await journal.renewLeases(
        keys.map((key) => ({ ...key, owner: 'renewing-instance' })),
        5_000,
      );
    } finally {
      recording.stop();
    }
    expect(recording.statements.filter((sql) => /lease_expires_at/.test(sql))).toHaveLength(1);
    const entries = await journal.findMany(
      'acme',
      sessionId,
      keys.map((k) => k.toolCallId),
    );
    expect(keys.map((k) => entries.get(k.toolCallId)?.leaseExpiresAt)).toEqual([5_000, 5_000, 1_000]);
  });
});

describe('a call this instance took over from itself (its first attempt stalled past JOURNAL_LEASE_MS)', () => {
  let db: TestDatabase;
  let gw: TestGateway;
  let remote: RecordingHttpServer;
  let runtime: { Authorization: string };
  let port: number;
  let sessionId: string;
  /** The remote's open answers, in arrival order: the test decides when each attempt's call returns. */
  const held: ServerResponse[] = [];

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    remote.handler = (_req, res) => void held.push(res);
    db = await createTestDatabaseUrl('sqlite');
    // A long lease: the test expires it by hand, and no renewal round comes in between.
    gw = await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', JOURNAL_LEASE_MS: '60000' });
    await gw.app.listen(0, '127.0.0.1');
    port = (gw.app.getHttpServer().address() as AddressInfo).port;
    runtime = await createKey(gw, 'acme', 'runtime');
    ({ sessionId } = await sessionWithTool(gw, runtime, 'acme', {
      name: 'lookup',
      endpoint: remote.url('/lookup'),
      sideEffect: 'READ_ONLY',
      timeoutMs: 30_000,
    }));
  });
  afterAll(async () => {
    for (const res of held) res.destroy();
    await gw?.close();
    await remote?.stop();
    await db?.drop();
  });

  const act = (id: string) =>
    gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id, name: 'lookup', arguments: { q: id } }] });
  const reached = (n: number) =>
    waitFor(() => remote.requests.length === n, { description: `call ${n} to reach the remote` });
  const answer = (n: number, body: unknown) => held[n - 1].end(JSON.stringify(body));
  /** What a stall leaves: the entry's lease expired while its call still runs (no renewal got through). */
  const expireLease = (id: string) =>
    gw.app
      .get(DataSource)
      .query('UPDATE tool_call_journal SET lease_expires_at = ? WHERE session_id = ? AND tool_call_id = ?', [
        Date.now() - 1,
        sessionId,
        id,
      ]);
  const entry = async (id: string) =>
    (
      await gw.app
        .get(DataSource)
        .query('SELECT state, content FROM tool_call_journal WHERE session_id = ? AND tool_call_id = ?', [
          sessionId,
          id,
        ])
    )[0] as { state: string; content: string | null } | undefined;

  it('the stale attempt finishing late does not write its outcome over the attempt that took the entry over', async () => {
    const base = remote.requests.length;
    const first = act('stale-finish').then((r) => r);
    await reached(base + 1);
    await expireLease('stale-finish');
    const second = act('stale-finish').then((r) => r);
    await reached(base + 2);

    answer(base + 1, { attempt: 1 });
    expect((await first).body.results[0]).toMatchObject({ status: 'COMPLETED', content: '{"attempt":1}' });
    // The entry is the second attempt's, which still runs.
    expect(await entry('stale-finish')).toMatchObject({ state: 'STARTED' });

    answer(base + 2, { attempt: 2 });
    expect((await second).body.results[0]).toMatchObject({ status: 'COMPLETED', content: '{"attempt":2}' });
    const again = await act('stale-finish').expect(200);
    expect(again.body.results[0]).toMatchObject({ reused: true, content: '{"attempt":2}' });
    // The stream tells of the outcome the journal kept only: each attempt started, one completed.
    const store = gw.app.get(SessionEventsStore);
    await store.flush();
    const events = (await store.page(sessionId, 0, 1000)).items.filter((e) => e.data.toolCallId === 'stale-finish');
    expect(events.map((e) => [e.type, e.data.recovered ?? false])).toEqual([
      ['tool.started', false],
      ['tool.started', true],
      ['tool.completed', false],
    ]);
  });

  it('the stale attempt cancelled by its client does not release the claim of the attempt that took the entry over', async () => {
    const base = remote.requests.length;
    const client = httpRequest({
      host: '127.0.0.1',
      port,
      path: `/api/v1/sessions/${sessionId}/act`,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...runtime },
    });
    client.on('error', () => undefined);
    client.end(
      JSON.stringify({ iteration: 1, toolCalls: [{ id: 'stale-cancel', name: 'lookup', arguments: { q: 'c' } }] }),
    );
    await reached(base + 1);
    await expireLease('stale-cancel');
    const second = gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'stale-cancel', name: 'lookup', arguments: { q: 'c' } }] })
      .then((r) => r);
    await reached(base + 2);

    // The first attempt's client gives up: its READ_ONLY call is cancelled (the tool log says so).
    client.destroy();
    await waitFor(
      async () =>
        (
          (await gw.http.get(`/api/v1/admin/tool-calls?sessionId=${sessionId}`).set(gw.admin).expect(200)).body
            .items as Array<{ toolCallId: string; errorClass: string }>
        ).some((r) => r.toolCallId === 'stale-cancel' && r.errorClass === 'CANCELLED'),
      { description: 'the first attempt to be cancelled' },
    );
    // The second attempt still holds the entry: a resubmission is told so and runs nothing.
    expect(await entry('stale-cancel')).toMatchObject({ state: 'STARTED' });
    const during = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'stale-cancel', name: 'lookup', arguments: { q: 'c' } }] })
      .expect(409);
    expect(during.body.error.code).toBe('TOOL_CALL_IN_PROGRESS');
    expect(remote.requests).toHaveLength(base + 2);

    answer(base + 2, { attempt: 2 });
    expect((await second).body.results[0]).toMatchObject({ status: 'COMPLETED', content: '{"attempt":2}' });
    expect(await entry('stale-cancel')).toMatchObject({ state: 'COMPLETED', content: '{"attempt":2}' });
  });
});
