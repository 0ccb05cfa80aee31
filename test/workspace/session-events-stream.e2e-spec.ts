import { HotSql } from '@app/database/hot-sql';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createKey, gatewayForSuite } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';
import { secondEventsStore } from '@test/support/second-events-store';
import { waitFor } from '@test/support/wait-for';
import { SessionEventsStore } from '@app/modules/session-events/session-events.store';

interface SseEvent {
  id: string;
  data: { seq: number; type: string; at: string; data: Record<string, unknown> };
}

/** An open SSE connection: `next(n)` resolves with the next n events as they arrive. */
interface SseClient {
  status: number;
  contentType: string;
  next(n: number): Promise<SseEvent[]>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

describeEachDialect('session events as Server-Sent Events', (dialect) => {
  const suite = gatewayForSuite(dialect, { EVENTS_STREAM_POLL_MS: '100', EVENTS_STREAM_MAX_PER_TENANT: '3' });
  let runtime: { Authorization: string };
  let sessionId: string;
  let port: number;
  const store = () => suite.gw.app.get(SessionEventsStore);
  const append = (type: 'message' | 'todo.updated', i: number, s: SessionEventsStore = store(), session = sessionId) =>
    s.append({ tenantId: 't-sse', sessionId: session, type, data: { i } });

  /** A runtime key of `tenantId` and a session of a new agent of that tenant. */
  async function tenantSession(tenantId: string): Promise<{ key: { Authorization: string }; sessionId: string }> {
    const key = await createKey(suite.gw, tenantId);
    const agent = await suite.gw.http
      .post('/api/v1/admin/agents')
      .set(suite.gw.admin)
      .send({ tenantId, name: `sse-agent-${tenantId}` })
      .expect(201);
    const session = await suite.gw.http
      .post('/api/v1/sessions')
      .set(key)
      .send({ agentId: agent.body.id, userId: 'u1', permissions: [] })
      .expect(201);
    return { key, sessionId: session.body.id as string };
  }

  beforeAll(async () => {
    ({ key: runtime, sessionId } = await tenantSession('t-sse'));
    const server = suite.gw.app.getHttpServer();
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  it('sends the stored events with id: = seq, then new ones as they are appended', async () => {
    for (let i = 1; i <= 3; i++) await append('message', i);
    const sse = await connect({});
    try {
      expect(sse.status).toBe(200);
      expect(sse.contentType).toContain('text/event-stream');
      const first = await sse.next(3);
      expect(first.map((e) => e.id)).toEqual(['1', '2', '3']);
      expect(first[0].data).toEqual({ seq: 1, type: 'message', at: expect.any(String), data: { i: 1 } });
      await append('todo.updated', 4);
      const [fourth] = await sse.next(1);
      expect(fourth).toMatchObject({ id: '4', data: { seq: 4, type: 'todo.updated', data: { i: 4 } } });
    } finally {
      sse.close();
    }
  });

  it('resumes after Last-Event-ID (and after ?after=)', async () => {
    const resumed = await connect({ 'last-event-id': '2' });
    try {
      expect((await resumed.next(2)).map((e) => e.id)).toEqual(['3', '4']);
    } finally {
      resumed.close();
    }
    const byQuery = await connect({}, '?after=3');
    try {
      expect((await byQuery.next(1)).map((e) => e.id)).toEqual(['4']);
    } finally {
      byQuery.close();
    }
  });

  it("finds events another instance wrote by polling (a store this process's streams are not woken by)", async () => {
    const sse = await connect({ 'last-event-id': '4' });
    try {
      const otherInstance = secondEventsStore(suite.gw.app);
      await append('message', 5, otherInstance);
      const [fifth] = await sse.next(1);
      expect(fifth).toMatchObject({ id: '5', data: { data: { i: 5 } } });
    } finally {
      sse.close();
    }
  });

  it("answers 404 for another tenant's session and 400 for a Last-Event-ID that is not a seq", async () => {
    const stranger = await createKey(suite.gw, 't-sse-other');
    await suite.gw.http.get(`/api/v1/sessions/${sessionId}/events/stream`).set(stranger).expect(404);
    const bad = await suite.gw.http
      .get(`/api/v1/sessions/${sessionId}/events/stream`)
      .set(runtime)
      .set('last-event-id', 'abc')
      .expect(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
  });

  // An id no event can have (the seq column is a signed 32-bit INT) opened a stream that could never send anything.
  it.each(['2147483648', '9007199254740993', '999999999999999', '-1', '1.5', '1e3', 'abc'])(
    'refuses Last-Event-ID %s with a 400 giving the range, as after= is refused',
    async (lastEventId) => {
      const sse = await connect({ 'last-event-id': lastEventId });
      sse.close();
      expect(sse.status).toBe(400);
      const bad = await suite.gw.http
        .get(`/api/v1/sessions/${sessionId}/events/stream`)
        .set(runtime)
        .set('last-event-id', lastEventId)
        .expect(400);
      expect(bad.body.error.code).toBe('VALIDATION_FAILED');
      expect(bad.body.error.details.fields).toEqual([
        { field: 'Last-Event-ID', problems: [expect.stringContaining('must be a whole number from 0 to 2147483647')] },
      ]);
    },
  );

  it('ends an open stream once its key is deleted; the reconnect is refused', async () => {
    const created = await suite.gw.http
      .post('/api/v1/admin/api-keys')
      .set(suite.gw.admin)
      .send({ name: 'revoked-soon', role: 'runtime', tenantId: 't-sse' })
      .expect(201);
    const key = { Authorization: `Bearer ${created.body.key}` };
    const stored = await suite.gw.http.get(`/api/v1/sessions/${sessionId}/events?limit=1000`).set(key).expect(200);
    const sse = await connect(key, `?after=${stored.body.items.length}`);
    try {
      expect(sse.status).toBe(200);
      await append('message', 100);
      expect((await sse.next(1))[0].data.data).toEqual({ i: 100 });
      let ended = false;
      void sse.ended.then(() => (ended = true));
      await suite.gw.http.delete(`/api/v1/admin/api-keys/${created.body.id}`).set(suite.gw.admin).expect(200);
      await sse.ended;
      expect(ended).toBe(true);
    } finally {
      sse.close();
    }
    const again = await connect(key);
    again.close();
    expect(again.status).toBe(401);
  });

  it("refuses a tenant's stream past EVENTS_STREAM_MAX_PER_TENANT with a 429, and frees the place when one closes", async () => {
    const open = [await connect({}), await connect({}), await connect({})];
    try {
      expect(open.map((s) => s.status)).toEqual([200, 200, 200]);
      const refused = await suite.gw.http.get(`/api/v1/sessions/${sessionId}/events/stream`).set(runtime);
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('TOO_MANY_REQUESTS');
      expect(refused.body.error.message).toContain('EVENTS_STREAM_MAX_PER_TENANT');
      // Another tenant's streams are counted apart.
      const other = await tenantSession('t-sse-other');
      const theirs = await connect(other.key, '', other.sessionId);
      theirs.close();
      expect(theirs.status).toBe(200);
      open.pop()!.close();
      await waitFor(async () => {
        const again = await connect({});
        again.close();
        return again.status === 200;
      });
    } finally {
      for (const s of open) s.close();
    }
  });

  it('ends the stream of a session once it is closed, after its last events; a reconnect after them is told to stop (204)', async () => {
    const closing = await tenantSession('t-sse-closing');
    const sse = await connect(closing.key, '', closing.sessionId);
    try {
      expect(sse.status).toBe(200);
      await append('message', 1, store(), closing.sessionId);
      expect((await sse.next(1))[0].id).toBe('1');
      await suite.gw.http.delete(`/api/v1/sessions/${closing.sessionId}`).set(closing.key).expect(200);
      await append('message', 2, store(), closing.sessionId);
      await sse.ended;
      expect((await sse.next(1))[0]).toMatchObject({ id: '2', data: { data: { i: 2 } } });
    } finally {
      sse.close();
    }
    const reconnect = await connect({ ...closing.key, 'last-event-id': '2' }, '', closing.sessionId);
    reconnect.close();
    expect(reconnect.status).toBe(204);
    // Events the client has not read yet are still sent, then the stream ends.
    const late = await connect({ ...closing.key, 'last-event-id': '1' }, '', closing.sessionId);
    try {
      expect(late.status).toBe(200);
      expect((await late.next(1))[0].id).toBe('2');
      await late.ended;
    } finally {
      late.close();
    }
  });

  it('keeps the stream of a closed session open while a call of it still runs, and sends what that call writes when it ends', async () => {
    const closing = await tenantSession('t-sse-running');
    await suite.gw.http.delete(`/api/v1/sessions/${closing.sessionId}`).set(closing.key).expect(200);
    const sql = suite.gw.app.get(HotSql);
    // A call a batch was running at the close (another instance's, its lease live), and the close long past the grace.
    const now = Date.now();
    await sql.run(
      `INSERT INTO tool_call_journal (tenant_id, session_id, tool_call_id, tool_name, tool_id, fingerprint, arguments_json, side_effect, state, result_status, attempts, iteration, owner, lease_expires_at, started_at, finished_at, duration_ms, is_error, error_class, content, total_chars, result_chunks, inline_limit)
        VALUES (?, ?, 'call_slow', 'slow_tool', NULL, ?, '{}', 'WRITE', 'STARTED', NULL, 1, 1, 'other-instance', ?, ?, NULL, NULL, 0, NULL, NULL, 0, 0, 20000)`,
      ['t-sse-running', closing.sessionId, 'f'.repeat(64), now + 60_000, now - 60_000],
    );
    await sql.run('UPDATE agent_session SET updated_at = ? WHERE id = ?', [now - 60_000, closing.sessionId]);
    const written = await suite.gw.http
      .get(`/api/v1/sessions/${closing.sessionId}/events`)
      .set(closing.key)
      .expect(200);
    const lastSeq = String(written.body.nextAfter);

    const sse = await connect({ ...closing.key, 'last-event-id': lastSeq }, '', closing.sessionId);
    try {
      // Nothing follows yet, but the call will write when it ends: not the 204 that stops an EventSource.
      expect(sse.status).toBe(200);
      await sql.run(
        "UPDATE tool_call_journal SET state = 'COMPLETED', result_status = 'COMPLETED', finished_at = ? WHERE session_id = ? AND tool_call_id = 'call_slow'",
        [Date.now(), closing.sessionId],
      );
      await store().append({
        tenantId: 't-sse-running',
        sessionId: closing.sessionId,
        type: 'tool.completed',
        data: { toolCallId: 'call_slow' },
      });
      expect((await sse.next(1))[0].data).toMatchObject({ type: 'tool.completed', data: { toolCallId: 'call_slow' } });
      await sse.ended;
    } finally {
      sse.close();
    }
    // The stream ended the grace after the call did: a reconnect after its event is told to stop.
    const reconnect = await connect(
      { ...closing.key, 'last-event-id': String(Number(lastSeq) + 1) },
      '',
      closing.sessionId,
    );
    reconnect.close();
    expect(reconnect.status).toBe(204);
  });

  // Last: the stream it opens holds one of the tenant's places until the server sees it closed.
  it('takes Last-Event-ID 2147483647, the highest seq', async () => {
    const sse = await connect({ 'last-event-id': '2147483647' });
    sse.close();
    expect(sse.status).toBe(200);
  });

  function connect(headers: Record<string, string>, query = '', session = sessionId): Promise<SseClient> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          agent: false,
          path: `/api/v1/sessions/${session}/events/stream${query}`,
          headers: { ...runtime, ...headers },
        },
        (res: IncomingMessage) => {
          const events: SseEvent[] = [];
          let waiting: { n: number; resolve: (e: SseEvent[]) => void } | null = null;
          let buffer = '';
          const flush = () => {
            if (waiting && events.length >= waiting.n) {
              const w = waiting;
              waiting = null;
              w.resolve(events.splice(0, w.n));
            }
          };
          res.setEncoding('utf8');
          const ended = new Promise<void>((done) => res.once('end', () => done()));
          res.on('data', (chunk: string) => {
            buffer += chunk;
            let end: number;
            while ((end = buffer.indexOf('\n\n')) !== -1) {
              const block = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              const id = /^id: (.*)$/m.exec(block)?.[1];
              const data = /^data: (.*)$/m.exec(block)?.[1];
              if (id !== undefined && data !== undefined) events.push({ id, data: JSON.parse(data) });
            }
            flush();
          });
          resolve({
            status: res.statusCode!,
            contentType: String(res.headers['content-type']),
            next: (n) =>
              new Promise((done) => {
                waiting = { n, resolve: done };
                flush();
              }),
            ended,
            close: () => req.destroy(),
          });
        },
      );
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
      req.end();
    });
  }
});
