import { DataSource } from 'typeorm';
import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';
import { createKey, sessionWithTool, startTestGateway, TestGateway } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import { ToolCallJournalRepository } from '@app/modules/loop-acting/journal/tool-call-journal.repository';
import { SessionEventsStore } from '@app/modules/session-events/session-events.store';

/*
 * The outcome of a call that ran exists only in the process until the journal holds it: a write of it that the
 * database refuses once (a deadlock victim, a busy file, a dropped connection) is made again, not lost.
 */
describeEachDialect('the outcome of a call whose first write the database refuses', (dialect) => {
  let db: TestDatabase;
  let gw: TestGateway;
  let remote: RecordingHttpServer;
  let runtime: { Authorization: string };
  let sessionId: string;

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    remote.handler = (_req, res) => void res.end('{"written":true}');
    db = await createTestDatabaseUrl(dialect);
    gw = await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', JOURNAL_SWEEP_INTERVAL_MS: '0' });
    runtime = await createKey(gw, 'acme', 'runtime');
    ({ sessionId } = await sessionWithTool(gw, runtime, 'acme', {
      name: 'write_row',
      sideEffect: 'SIDE_EFFECT',
      endpoint: remote.url('/w'),
    }));
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await gw?.close();
    await remote?.stop();
    await db?.drop();
  });

  it('writes it again: the caller gets the result, the journal holds it, a resubmit reuses it', async () => {
    const journal = gw.app.get(ToolCallJournalRepository);
    const finish = jest.spyOn(journal, 'finish');
    // As the driver reports a transaction chosen as a deadlock victim (rolled back: nothing was written).
    finish.mockRejectedValueOnce(
      Object.assign(new Error('Deadlock found when trying to get lock; try restarting transaction'), { errno: 1213 }),
    );
    const call = { iteration: 1, toolCalls: [{ id: 'w1', name: 'write_row', arguments: { q: 'x' } }] };

    const first = await gw.http.post(`/api/v1/sessions/${sessionId}/act`).set(runtime).send(call);

    expect(first.status).toBe(200);
    expect(first.body.results[0]).toMatchObject({ status: 'COMPLETED', content: '{"written":true}' });
    expect(finish).toHaveBeenCalledTimes(2);
    const [row] = await gw.app
      .get(DataSource)
      .query("SELECT state, content FROM tool_call_journal WHERE session_id = ? AND tool_call_id = 'w1'", [sessionId]);
    expect(row).toMatchObject({ state: 'COMPLETED', content: '{"written":true}' });
    const again = await gw.http.post(`/api/v1/sessions/${sessionId}/act`).set(runtime).send(call).expect(200);
    expect(again.body.results[0]).toMatchObject({ status: 'COMPLETED', reused: true, content: '{"written":true}' });
    expect(remote.requests).toHaveLength(1);
  });

  it('counts a write the database committed before its answer was lost as written: the outcome is told once', async () => {
    const journal = gw.app.get(ToolCallJournalRepository);
    const finish = ToolCallJournalRepository.prototype.finish;
    // The commit landed, then the connection dropped before the driver heard of it.
    jest.spyOn(journal, 'finish').mockImplementationOnce(async (...args) => {
      await finish.apply(journal, args);
      throw Object.assign(new Error('Connection lost: The server closed the connection.'), {
        code: 'PROTOCOL_CONNECTION_LOST',
      });
    });
    const call = { iteration: 2, toolCalls: [{ id: 'w2', name: 'write_row', arguments: { q: 'y' } }] };

    const first = await gw.http.post(`/api/v1/sessions/${sessionId}/act`).set(runtime).send(call).expect(200);

    expect(first.body.results[0]).toMatchObject({ status: 'COMPLETED', content: '{"written":true}' });
    const store = gw.app.get(SessionEventsStore);
    await store.flush();
    const events = (await store.page(sessionId, 0, 1000)).items.filter((e) => e.data.toolCallId === 'w2');
    expect(events.map((e) => e.type)).toEqual(['tool.started', 'tool.completed']);
    expect(remote.requests).toHaveLength(2);
  });
});
