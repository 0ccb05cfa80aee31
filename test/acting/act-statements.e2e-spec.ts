import { createKey, gatewayForSuite, sessionWithTool } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import { recordStatements, StatementRecording } from '@test/support/statement-counter';
import { DataSource } from 'typeorm';
import { HotSql } from '@app/database/hot-sql';
import { SessionEventsStore } from '@app/modules/session-events/session-events.store';
import { ToolCallLogService } from '@app/modules/executors/tool-call-log/tool-call-log.service';

/**
 * What one `act` costs the database, counted at the driver (on MySQL every statement is a round trip): the journal
 * needs one read and two commits per call. Statements of the tool log (written behind the response, in batches)
 * and of the session events (written behind the call by their own writer, many events per statement) are left
 * out: they are not on the call's path; the first test counts the events apart.
 */
describeEachDialect('act: statements per call', (dialect) => {
  const suite = gatewayForSuite(dialect, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', TASK_WORKERS: '0' });
  let remote: RecordingHttpServer;
  let runtime: { Authorization: string };
  let sessionId: string;
  let recording: StatementRecording;

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    remote.handler = async (_req, res) => void res.end('{"ok":true}');
    const gw = suite.gw;
    runtime = await createKey(gw, 'acme', 'runtime');
    ({ sessionId } = await sessionWithTool(gw, runtime, 'acme', {
      name: 'lookup',
      sideEffect: 'READ_ONLY',
      endpoint: remote.url('/q'),
    }));
    // Warm: the first act raises the session's iteration and loads the tenant's view.
    await act('warm-1', 1);
    await suite.gw.app.get(ToolCallLogService).flush();
    recording = recordStatements(gw.app.get(DataSource), gw.app.get(HotSql));
  });
  afterAll(async () => {
    recording?.stop();
    await remote?.stop();
  });

  async function act(id: string, iteration: number): Promise<{ status: string; reused: boolean }> {
    const res = await suite.gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration, toolCalls: [{ id, name: 'lookup', arguments: { q: id } }] })
      .expect(200);
    return res.body.results[0];
  }

  const onCallPath = () => recording.statements.filter((sql) => !/tool_call_log|session_event/.test(sql));
  const eventWrites = () => recording.statements.filter((sql) => /session_event/.test(sql));
  /** Starts a test's recording with nothing of the previous test still to be written behind it. */
  async function startRecording(): Promise<void> {
    await suite.gw.app.get(SessionEventsStore).flush();
    await suite.gw.app.get(ToolCallLogService).flush();
    recording.clear();
  }

  it('a first-time act of a READ_ONLY call makes one read and two writes: STARTED and the outcome', async () => {
    await startRecording();
    expect(await act('first-1', 1)).toMatchObject({ status: 'COMPLETED', reused: false });
    const statements = onCallPath();
    expect(statements).toHaveLength(3);
    expect(statements[0]).toMatch(/^SELECT/);
    expect(statements[1]).toMatch(/^INSERT INTO tool_call_journal/);
    expect(statements[2]).toMatch(/^UPDATE tool_call_journal/);
    // Behind the call: tool.started and tool.completed by the events' writer, one autocommit statement per batch (both
    // in one when the act took less than the writer's wait, as here mostly; each seq taken inside the statement).
    await suite.gw.app.get(SessionEventsStore).flush();
    expect(eventWrites().length).toBeGreaterThanOrEqual(1);
    expect(eventWrites().length).toBeLessThanOrEqual(2);
    for (const sql of eventWrites())
      expect(sql).toMatch(/^INSERT INTO session_event .* WHERE e\.session_id = \? ORDER BY e\.seq DESC LIMIT 1\)/);
    if (dialect === 'mysql')
      expect(recording.statements.filter((sql) => /^(START TRANSACTION|COMMIT)/i.test(sql))).toEqual([]);
    const events = await suite.gw.app.get(SessionEventsStore).page(sessionId, 0, 100);
    expect(events.items.slice(-2).map((e) => [e.type, e.data.toolCallId])).toEqual([
      ['tool.started', 'first-1'],
      ['tool.completed', 'first-1'],
    ]);
    expect(events.items.map((e) => e.seq)).toEqual(events.items.map((_, i) => i + 1));
  });

  it('an act of a new iteration records it in the same transaction as STARTED: still one read and two commits', async () => {
    await startRecording();
    expect(await act('next-1', 2)).toMatchObject({ status: 'COMPLETED', reused: false });
    const statements = onCallPath().filter((sql) => !/^(BEGIN|START TRANSACTION|COMMIT)/i.test(sql));
    expect(statements).toHaveLength(4);
    expect(statements[0]).toMatch(/^SELECT/);
    // The session row first: the claim then reads it (is it still open?) under the lock this transaction holds.
    expect(statements[1]).toMatch(/^UPDATE agent_session SET iteration/);
    expect(statements[2]).toMatch(
      /^INSERT INTO tool_call_journal .* FROM agent_session WHERE id = \? AND status <> 'CLOSED'/s,
    );
    expect(statements[3]).toMatch(/^UPDATE tool_call_journal/);
    // One transaction: one COMMIT (on SQLite TypeORM's BEGIN/COMMIT statements were prepared before the recording).
    if (dialect === 'mysql') expect(onCallPath().filter((sql) => /^COMMIT/i.test(sql))).toHaveLength(1);
  });

  it('an act of a new iteration whose only call is reused still records the iteration', async () => {
    await startRecording();
    expect(await act('next-1', 3)).toMatchObject({ status: 'COMPLETED', reused: true });
    expect(onCallPath().filter((sql) => /^UPDATE agent_session SET iteration/.test(sql))).toHaveLength(1);
    const session = await suite.gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200);
    expect(session.body.iteration).toBe(3);
  });

  it('a repeated act reuses the stored result with one read and no write', async () => {
    await startRecording();
    expect(await act('first-1', 3)).toMatchObject({ status: 'COMPLETED', reused: true });
    expect(onCallPath()).toHaveLength(1);
  });
});
