import { createKey, gatewayForSuite, type TestGateway } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';
import { secondEventsStore } from '@test/support/second-events-store';
import { DataSource } from 'typeorm';
import { SessionEventsStore } from '@app/modules/session-events/session-events.store';
import { SessionEventOutboxRecovery } from '@app/modules/session-events/session-event-outbox.recovery';
import { SessionEventOutboxRepository } from '@app/modules/session-events/session-event-outbox.repository';
import { GATEWAY_CONFIG, type GatewayConfig } from '@app/config/gateway-config';
import { RetentionRepository } from '@app/modules/retention/retention.repository';
import { HotSql } from '@app/database/hot-sql';
import { recordStatements } from '@test/support/statement-counter';

describeEachDialect('session events: durable, ordered per session, tenant-scoped', (dialect) => {
  const suite = gatewayForSuite(dialect);
  let gw: TestGateway;
  let runtime: { Authorization: string };
  let sessionId: string;

  beforeAll(async () => {
    gw = suite.gw;
    runtime = await createKey(gw, 't-events');
    const agent = await gw.http
      .post('/api/v1/admin/agents')
      .set(gw.admin)
      .send({ tenantId: 't-events', name: 'events-agent' })
      .expect(201);
    const session = await gw.http
      .post('/api/v1/sessions')
      .set(runtime)
      .send({ agentId: agent.body.id, userId: 'u1', permissions: [], task: { description: 'Summarise the report' } })
      .expect(201);
    sessionId = session.body.id;
    expect(session.body.task).toEqual({ description: 'Summarise the report' });
  });

  it('numbers appends of two instances 1..n without gaps or duplicates', async () => {
    const mine = gw.app.get(SessionEventsStore);
    // Another gateway instance on the same database: its own chain, racing this one on the primary key.
    const other = secondEventsStore(gw.app);
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (i % 2 === 0 ? mine : other).append({ tenantId: 't-events', sessionId, type: 'todo.updated', data: { i } }),
      ),
    );
    const page = await mine.page(sessionId, 0, 100);
    expect(page.items.map((e) => e.seq)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(page.items.map((e) => e.data.i).sort((x, y) => Number(x) - Number(y))).toEqual(
      Array.from({ length: 12 }, (_, i) => i),
    );
  });

  it('writes an event with a once-key once, whoever records it again, leaving no gap in the numbering', async () => {
    const mine = gw.app.get(SessionEventsStore);
    const other = secondEventsStore(gw.app);
    const session = 'once-key';
    const event = (i: number, onceKey?: string) => ({
      tenantId: 't-events',
      sessionId: session,
      type: 'hitl.decided' as const,
      data: { i },
      onceKey,
    });
    // Two instances at once, and behind other events of the same batch.
    await Promise.all([mine.append(event(0, 'hitl.decided:r1')), other.append(event(1, 'hitl.decided:r1'))]);
    mine.record(event(2));
    mine.record(event(3, 'hitl.decided:r1'));
    mine.record(event(4, 'hitl.decided:r2'));
    mine.record(event(5));
    await mine.flush();
    const items = (await mine.page(session, 0, 100)).items;
    expect(items.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(items.map((e) => e.data.i)).toEqual([expect.any(Number), 2, 4, 5]);
    expect([0, 1]).toContain(items[0].data.i);
  });

  it('writes events recorded behind calls of several sessions together, numbered in order within each session', async () => {
    const store = gw.app.get(SessionEventsStore);
    const sessions = ['batch-a', 'batch-b'];
    const recording = recordStatements(gw.app.get(DataSource), gw.app.get(HotSql));
    try {
      for (let i = 0; i < 7; i++)
        store.record({ tenantId: 't-events', sessionId: sessions[i % 2], type: 'tool.started', data: { i } });
      await store.flush();
      // One statement for the batch: a batch statement the database refuses falls back to one event at a time,
      // which would write the same events (a commit each).
      expect(recording.statements.filter((sql) => /^INSERT INTO session_event /.test(sql))).toHaveLength(1);
    } finally {
      recording.stop();
    }
    const a = (await store.page('batch-a', 0, 100)).items;
    const b = (await store.page('batch-b', 0, 100)).items;
    expect(a.map((e) => [e.seq, e.data.i])).toEqual([
      [1, 0],
      [2, 2],
      [3, 4],
      [4, 6],
    ]);
    expect(b.map((e) => [e.seq, e.data.i])).toEqual([
      [1, 1],
      [2, 3],
      [3, 5],
    ]);
    // A later batch continues each session's numbering.
    store.record({ tenantId: 't-events', sessionId: 'batch-b', type: 'tool.completed', data: { i: 7 } });
    await store.flush();
    expect((await store.page('batch-b', 3, 100)).items.map((e) => [e.seq, e.type])).toEqual([[4, 'tool.completed']]);
  });

  it("continues a long session's numbering in a batch with another session's event", async () => {
    const ds = gw.app.get(DataSource);
    const long = 'long-session';
    const n = 3000;
    for (let from = 0; from < n; from += 500) {
      const rows = Array.from(
        { length: 500 },
        (_, i) => `('${long}', ${from + i + 1}, 't-events', 'message', 0, '{}')`,
      );
      await ds.query(
        `INSERT INTO session_event (session_id, seq, tenant_id, type, at, data) VALUES ${rows.join(', ')}`,
      );
    }
    const store = gw.app.get(SessionEventsStore);
    for (const sessionId of [long, 'short-session', long])
      store.record({ tenantId: 't-events', sessionId, type: 'tool.started', data: { sessionId } });
    await store.flush();
    expect((await store.page(long, n - 1, 10)).items.map((e) => [e.seq, e.type])).toEqual([
      [n, 'message'],
      [n + 1, 'tool.started'],
      [n + 2, 'tool.started'],
    ]);
    expect((await store.page('short-session', 0, 10)).items.map((e) => e.seq)).toEqual([1]);
  });

  it('writes an event appended inside a transaction when it commits, and never when it rolls back', async () => {
    const store = gw.app.get(SessionEventsStore);
    const ds = gw.app.get(DataSource);
    const other = { tenantId: 't-events', sessionId: 'tx-session', type: 'message' as const };
    await ds.transaction(async (m) => {
      await store.append({ ...other, data: { n: 1 } }, m);
    });
    await store.flush();
    expect((await store.page('tx-session', 0, 10)).items.map((e) => e.data)).toEqual([{ n: 1 }]);
    await expect(
      ds.transaction(async (m) => {
        await store.append({ ...other, data: { n: 2 } }, m);
        throw new Error('the work failed');
      }),
    ).rejects.toThrow('the work failed');
    await store.flush();
    expect((await store.page('tx-session', 0, 10)).items.map((e) => e.data)).toEqual([{ n: 1 }]);
    // Written, its outbox row is gone (rolled back, it never stayed): no outbox round writes either of them.
    expect(await ds.query("SELECT id FROM session_event_outbox WHERE session_id = 'tx-session'")).toEqual([]);
  });

  it('an outbox round writes only events kept longer than JOURNAL_LEASE_MS (a younger one is left to its process)', async () => {
    const ds = gw.app.get(DataSource);
    const outbox = gw.app.get(SessionEventOutboxRepository);
    const leaseMs = gw.app.get<GatewayConfig>(GATEWAY_CONFIG).journalLeaseMs;
    const now = Date.now();
    const row = (id: string, at: number) => ({
      id,
      tenantId: 't-events',
      sessionId: 'round-session',
      type: 'message' as const,
      at,
      data: { id },
      onceKey: `outbox:${id}`,
    });
    const abandoned = row('00000000-0000-4000-8000-00000000000a', now - leaseMs - 1);
    const young = row('00000000-0000-4000-8000-00000000000b', now);
    await ds.transaction(async (m) => {
      await outbox.keep(abandoned, m);
      await outbox.keep(young, m);
    });

    expect(await gw.app.get(SessionEventOutboxRecovery).writeAbandoned(now)).toBe(1);
    const store = gw.app.get(SessionEventsStore);
    expect((await store.page('round-session', 0, 10)).items.map((e) => e.data)).toEqual([{ id: abandoned.id }]);
    expect(await ds.query("SELECT id FROM session_event_outbox WHERE session_id = 'round-session'")).toEqual([
      { id: young.id },
    ]);
    await outbox.remove([young.id]);
  });

  it('writes an event a killed process kept in the outbox once, also when that process had written it', async () => {
    const store = gw.app.get(SessionEventsStore);
    const ds = gw.app.get(DataSource);
    const kept = (id: string, n: number) => ({
      id,
      tenantId: 't-events',
      sessionId: 'kept-session',
      type: 'run.finished' as const,
      at: Date.now(),
      data: { n },
      onceKey: `outbox:${id}`,
    });
    const outbox = gw.app.get(SessionEventOutboxRepository);
    const first = kept('00000000-0000-4000-8000-000000000001', 1);
    const second = kept('00000000-0000-4000-8000-000000000002', 2);
    await ds.transaction(async (m) => {
      await outbox.keep(first, m);
      await outbox.keep(second, m);
    });
    // The process wrote its first event and died before removing its row: a round finds both rows.
    await ds.query(
      'INSERT INTO session_event (session_id, seq, tenant_id, type, at, data, once_key) VALUES (?, 1, ?, ?, ?, ?, ?)',
      [first.sessionId, first.tenantId, first.type, first.at, JSON.stringify(first.data), first.onceKey],
    );
    await store.writeKept([first, second]);
    expect((await store.page('kept-session', 0, 10)).items.map((e) => [e.seq, e.data])).toEqual([
      [1, { n: 1 }],
      [2, { n: 2 }],
    ]);
    expect(await ds.query("SELECT id FROM session_event_outbox WHERE session_id = 'kept-session'")).toEqual([]);
  });

  it('leaves out a kept event whose session retention purged after an outbox round read its row', async () => {
    const store = gw.app.get(SessionEventsStore);
    const ds = gw.app.get(DataSource);
    const outbox = gw.app.get(SessionEventOutboxRepository);
    const row = {
      id: '00000000-0000-4000-8000-0000000000c1',
      tenantId: 't-events',
      sessionId: 'purged-session',
      type: 'run.finished' as const,
      at: Date.now(),
      data: {},
      onceKey: 'outbox:00000000-0000-4000-8000-0000000000c1',
    };
    await ds.transaction((m) => outbox.keep(row, m));
    // The round has read the row; retention then purges the session, its kept events first.
    const ref = { id: row.sessionId, tenantId: row.tenantId, updatedAt: 0 };
    expect(await gw.app.get(RetentionRepository).deleteKeptSessionEvents(ref, 10)).toBe(1);

    const failures = await store.writeKept([row]);

    expect(failures.size).toBe(0);
    // Written, the event would outlive its session: nothing deletes events of a session that no longer exists.
    expect(await ds.query("SELECT seq FROM session_event WHERE session_id = 'purged-session'")).toEqual([]);
  });

  it('pages with after/limit and answers nextAfter', async () => {
    const first = await gw.http.get(`/api/v1/sessions/${sessionId}/events?limit=5`).set(runtime).expect(200);
    expect(first.body.items.map((e: { seq: number }) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(first.body.items[0]).toEqual({
      seq: 1,
      type: 'todo.updated',
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      data: expect.objectContaining({ i: expect.any(Number) }),
    });
    expect(first.body.nextAfter).toBe(5);
    const rest = await gw.http.get(`/api/v1/sessions/${sessionId}/events?after=5&limit=100`).set(runtime).expect(200);
    expect(rest.body.items.map((e: { seq: number }) => e.seq)).toEqual([6, 7, 8, 9, 10, 11, 12]);
    const none = await gw.http.get(`/api/v1/sessions/${sessionId}/events?after=12`).set(runtime).expect(200);
    expect(none.body).toEqual({ items: [], nextAfter: 12 });
  });

  it('refuses a bad page request with a 400 naming the parameter', async () => {
    const res = await gw.http.get(`/api/v1/sessions/${sessionId}/events?limit=5000`).set(runtime).expect(400);
    expect(JSON.stringify(res.body)).toContain('limit');
  });

  // after is a seq: its column is a signed 32-bit INT. Read as any number before, 1e308 answered an empty page.
  it.each(['1e308', '2147483648', '9007199254740993', '99999999999999999999', '-1', '1.5', '1e3', '0x10', ''])(
    'refuses after=%s on the events, the messages and the event stream with a 400 giving the range',
    async (after) => {
      for (const path of ['events', 'messages', 'events/stream']) {
        const res = await gw.http.get(`/api/v1/sessions/${sessionId}/${path}`).query({ after }).set(runtime);
        expect([path, res.status, res.body.error?.code]).toEqual([path, 400, 'VALIDATION_FAILED']);
        expect(res.body.error.details.fields).toEqual([
          { field: 'after', problems: [expect.stringContaining('after must be a whole number from 0 to 2147483647')] },
        ]);
      }
    },
  );

  it('takes after=2147483647, the highest seq, on the events and the messages: an empty page', async () => {
    for (const path of ['events', 'messages']) {
      const res = await gw.http.get(`/api/v1/sessions/${sessionId}/${path}?after=2147483647`).set(runtime).expect(200);
      expect(res.body).toEqual({ items: [], nextAfter: 2147483647 });
    }
  });

  it("another tenant's key gets 404", async () => {
    const other = await createKey(gw, 't-other');
    await gw.http.get(`/api/v1/sessions/${sessionId}/events`).set(other).expect(404);
  });

  it('answers a page once the events queued before it are written, though other sessions keep the writer busy', async () => {
    const store = gw.app.get(SessionEventsStore);
    // A steady load until the page is answered: each write of the busy session queues its next event. LOAD only
    // bounds a reader that would wait for an empty queue, which the load never leaves before it stops.
    const LOAD = 5000;
    let loaded = 0;
    let answered = false;
    let running!: () => void;
    const isRunning = new Promise<void>((resolve) => (running = resolve));
    const busy = { tenantId: 't-events', sessionId: 'busy-writer', type: 'tool.started' as const };
    const stop = store.onAppended(busy.sessionId, () => {
      if (!answered && ++loaded < LOAD) store.record({ ...busy, data: { n: loaded } });
      running();
    });
    // Each event write lets other work in first, as a database over the network does (better-sqlite3 does not).
    const sql = gw.app.get(HotSql);
    const run = sql.run.bind(sql);
    const writes = jest.spyOn(sql, 'run').mockImplementation(async (text, params) => {
      if (text.startsWith('INSERT INTO session_event ')) await new Promise((resolve) => setImmediate(resolve));
      return run(text, params);
    });
    try {
      store.record({ ...busy, data: { n: 0 } });
      await isRunning;
      // An event of the read session is queued behind the load's, then read through the contract.
      store.record({ tenantId: 't-events', sessionId, type: 'message', data: { queued: 'before the read' } });
      const res = await gw.http.get(`/api/v1/sessions/${sessionId}/events?limit=1000`).set(runtime).expect(200);
      answered = true;
      expect(res.body.items.at(-1)).toMatchObject({ type: 'message', data: { queued: 'before the read' } });
      // Answered while the load still ran: not held until the queue was empty, which only the bound brought.
      expect(loaded).toBeLessThan(LOAD);
    } finally {
      answered = true;
      await store.flush();
      stop();
      writes.mockRestore();
    }
  });
});
