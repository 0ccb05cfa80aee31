import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServerResponse } from 'node:http';
import { describeEachDialect, createTestDatabaseUrl, TestDatabase, TestDialect } from '@test/support/test-database';
import { createKey, startTestGateway, TestGateway, toolBody } from '@test/support/gateway-test-app';
import { RecordingHttpServer, RecordedRequest } from '@test/executors/support/recording-http.server';
import { waitFor } from '@test/support/wait-for';

/** How long the slow remote holds a request unless its client goes away first. */
const SLOW_MS = 15_000;
/** How long the side-effecting remote takes before it answers (the call must finish although the client left). */
const WRITE_MS = 1_500;

/**
 * Issue 9 #11: the call path's outer signal was never passed, so a client that disconnected never cancelled its
 * call. Both entries (executeDirect and act) must cancel.
 */
describeEachDialect('a client that goes away cancels its call', (dialect: TestDialect) => {
  let db: TestDatabase;
  let remote: RecordingHttpServer;
  let gw: TestGateway;
  let port: number;
  let runtime: { Authorization: string };
  let agentId: string;

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    remote.handler = (req, res) => answer(req, res);
    db = await createTestDatabaseUrl(dialect);
    gw = await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
    await gw.app.listen(0, '127.0.0.1');
    port = (gw.app.getHttpServer().address() as AddressInfo).port;
    runtime = await createKey(gw, 'acme', 'runtime');
    const create = async (name: string, overrides: Record<string, unknown>) =>
      (
        await gw.http
          .post('/api/v1/admin/tools')
          .set(gw.admin)
          .send(toolBody({ name, tenantId: 'acme', endpoint: remote.url(`/${name}`), timeoutMs: 30_000, ...overrides }))
          .expect(201)
      ).body.id;
    const toolIds = [
      await create('slow_read', { sideEffect: 'READ_ONLY' }),
      await create('slow_write', { sideEffect: 'SIDE_EFFECT' }),
    ];
    agentId = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'a', tenantId: 'acme' }).expect(201)
    ).body.id;
    await gw.http.put(`/api/v1/admin/agents/${agentId}/tools`).set(gw.admin).send({ toolIds }).expect(200);
  });
  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
    await db?.drop();
  });

  /** slow_read: held until the client goes away (or SLOW_MS); slow_write: answered after WRITE_MS whatever happens. */
  function answer(req: RecordedRequest, res: ServerResponse): void {
    const delay = req.url.startsWith('/slow_write') ? WRITE_MS : SLOW_MS;
    const timer = setTimeout(() => res.end(JSON.stringify({ done: req.url })), delay);
    res.on('close', () => clearTimeout(timer));
  }

  /** Sends a JSON POST and destroys the connection once `until` holds (a client that gives up). */
  async function sendAndAbort(path: string, body: unknown, until: () => boolean): Promise<void> {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      path,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...runtime },
    });
    req.on('error', () => undefined);
    req.end(JSON.stringify(body));
    await waitFor(until, { timeoutMs: 10_000, description: 'the remote to receive the call' });
    req.destroy();
  }

  const requestsTo = (path: string) => remote.requests.filter((r) => r.url.startsWith(path));
  const logRows = async (toolCallId: string) =>
    (
      (await gw.http.get('/api/v1/admin/tool-calls?pageSize=100').set(gw.admin).expect(200)).body.items as Array<
        Record<string, any>
      >
    ).filter((r) => r.toolCallId === toolCallId);

  it('executeDirect: the remote sees its connection closed at once and the tool log says CANCELLED', async () => {
    const toolCallId = `exec-${dialect}`;
    const seen = requestsTo('/slow_read').length;
    await sendAndAbort(
      '/api/v1/tools/slow_read/execute',
      { agentId, userId: 'u1', permissions: [], arguments: { q: 'x' }, toolCallId },
      () => requestsTo('/slow_read').length > seen,
    );
    const call = requestsTo('/slow_read')[seen];
    await waitFor(() => call.abortedAt !== undefined, {
      timeoutMs: 5_000,
      description: 'the remote to see the connection close',
    });
    expect(call.abortedAt! - call.at).toBeLessThan(SLOW_MS / 3);
    const [row] = await waitFor(() => logRows(toolCallId).then((rows) => (rows.length ? rows : null)));
    expect(row).toMatchObject({ status: 'FAILED', errorClass: 'CANCELLED', attempts: 1, entry: 'DIRECT' });
    expect(row.durationMs).toBeLessThan(SLOW_MS / 3);
    expect(requestsTo('/slow_read')).toHaveLength(seen + 1);
  });

  it('act: a READ_ONLY call in flight is cancelled and its claim released, so the same toolCallId runs again later', async () => {
    const sessionId = (
      await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u1', permissions: [] }).expect(201)
    ).body.id;
    const seen = requestsTo('/slow_read').length;
    const calls = [
      { id: 'read-1', name: 'slow_read', arguments: { q: 'x' } },
      { id: 'read-2', name: 'slow_read', arguments: { q: 'y' } },
    ];
    await sendAndAbort(
      `/api/v1/sessions/${sessionId}/act`,
      { iteration: 1, toolCalls: calls },
      () => requestsTo('/slow_read').length > seen,
    );
    const call = requestsTo('/slow_read')[seen];
    await waitFor(() => call.abortedAt !== undefined, {
      timeoutMs: 5_000,
      description: 'the remote to see the connection close',
    });
    const [row] = await waitFor(() =>
      logRows('read-1').then((rows) =>
        rows.some((r) => r.sessionId === sessionId) ? rows.filter((r) => r.sessionId === sessionId) : null,
      ),
    );
    expect(row).toMatchObject({ status: 'FAILED', errorClass: 'CANCELLED', entry: 'ACT' });
    // The batch stopped: read-2 was never started, and read-1 left no journal entry behind.
    await waitFor(
      async () =>
        (await gw.http.get(`/api/v1/admin/sessions/${sessionId}/journal`).set(gw.admin).expect(200)).body.items
          .length === 0,
      { description: 'the released claim' },
    );
    expect(requestsTo('/slow_read')).toHaveLength(seen + 1);

    remote.handler = (req, res) => void res.end(JSON.stringify({ fast: req.url }));
    try {
      const again = await gw.http
        .post(`/api/v1/sessions/${sessionId}/act`)
        .set(runtime)
        .send({ iteration: 1, toolCalls: calls })
        .expect(200);
      expect(again.body.results.map((r: { status: string; reused: boolean }) => [r.status, r.reused])).toEqual([
        ['COMPLETED', false],
        ['COMPLETED', false],
      ]);
    } finally {
      remote.handler = (req, res) => answer(req, res);
    }
  });

  it('act: a SIDE_EFFECT call already started is not cut off; its outcome is journaled and reused on resubmission', async () => {
    const sessionId = (
      await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u1', permissions: [] }).expect(201)
    ).body.id;
    const seen = requestsTo('/slow_write').length;
    const calls = [{ id: 'write-1', name: 'slow_write', arguments: { q: 'x' } }];
    await sendAndAbort(
      `/api/v1/sessions/${sessionId}/act`,
      { iteration: 1, toolCalls: calls },
      () => requestsTo('/slow_write').length > seen,
    );
    const journal = async () =>
      (await gw.http.get(`/api/v1/admin/sessions/${sessionId}/journal`).set(gw.admin).expect(200)).body.items;
    await waitFor(async () => (await journal())[0]?.state === 'COMPLETED', {
      timeoutMs: 10_000,
      description: 'the write to finish and be journaled',
    });
    expect(requestsTo('/slow_write')[seen].abortedAt).toBeUndefined();
    const again = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: calls })
      .expect(200);
    expect(again.body.results[0]).toMatchObject({ status: 'COMPLETED', reused: true });
    expect(JSON.parse(again.body.results[0].content)).toEqual({ done: '/slow_write' });
    expect(requestsTo('/slow_write')).toHaveLength(seen + 1);
  });
});
