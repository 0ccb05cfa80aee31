import { SessionCloseHooks } from '@app/modules/loop-acting/sessions/session-close.hooks';
import { AbandonedDecisionRecovery } from '@app/modules/loop-acting/acting/abandoned-decision.recovery';
import { DataSource } from 'typeorm';
import { SessionEventsStore } from '@app/modules/session-events/session-events.store';
import { hitlDecidedEvent } from '@app/modules/loop-acting/sessions/hitl-decided.event';
import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';
import { createKey, startTestGateway, TestGateway, toolBody } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';

describeEachDialect('act, the journal and human in the loop', (dialect) => {
  let db: TestDatabase;
  let gw: TestGateway;
  let remote: RecordingHttpServer;
  let runtime: { Authorization: string };
  let agentId: string;
  let deployToolId: string;
  const requestsTo = (path: string) => remote.requests.filter((r) => r.url.startsWith(path));

  const tool = async (name: string, overrides: Record<string, unknown>) =>
    (
      await gw.http
        .post('/api/v1/admin/tools')
        .set(gw.admin)
        .send(toolBody({ name, tenantId: 'acme', endpoint: remote.url(`/${name}`), ...overrides }))
        .expect(201)
    ).body;

  const newSession = async (agent = agentId) =>
    (
      await gw.http
        .post('/api/v1/sessions')
        .set(runtime)
        .send({ agentId: agent, userId: 'u1', permissions: ['ops'] })
        .expect(201)
    ).body.id as string;

  const act = (
    sessionId: string,
    iteration: number,
    toolCalls: Array<{ id: string; name: string; arguments: unknown }>,
    expected = 200,
  ) => gw.http.post(`/api/v1/sessions/${sessionId}/act`).set(runtime).send({ iteration, toolCalls }).expect(expected);

  const resume = (sessionId: string, body: Record<string, unknown>, expected = 200) =>
    gw.http.post(`/api/v1/sessions/${sessionId}/resume`).set(runtime).send(body).expect(expected);

  /** The session's hitl.decided events, as a client reading its events sees them. */
  const decidedEvents = async (sessionId: string) => {
    await gw.app.get(SessionEventsStore).flush();
    const events = (await gw.http.get(`/api/v1/sessions/${sessionId}/events`).set(runtime).expect(200)).body.items;
    return events.filter((e: { type: string }) => e.type === 'hitl.decided');
  };

  /** What a resume that died after saving its decision and recording it leaves among the events. */
  const recordedBeforeCrash = (sessionId: string, requestId: string, toolCallId: string) =>
    gw.app
      .get(SessionEventsStore)
      .append(
        hitlDecidedEvent(
          { tenantId: 'acme', id: sessionId },
          { id: requestId, requestType: 'TOOL_APPROVAL', toolCallId },
          'APPROVE',
          'k',
        ),
      );

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    remote.handler = (req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url.startsWith('/big')) return void res.end(JSON.stringify({ text: 'x'.repeat(50_000) }));
      res.end(JSON.stringify({ ok: true, path: req.url, body: req.body ? JSON.parse(req.body) : null }));
    };
    db = await createTestDatabaseUrl(dialect);
    gw = await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
    runtime = await createKey(gw, 'acme', 'runtime');
    const shellSchema = {
      type: 'object',
      properties: { command: { type: 'string', 'x-risk': 'shell' } },
      required: ['command'],
    };
    const tools = [
      await tool('read_doc', {
        httpMethod: 'GET',
        parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      }),
      await tool('shell_run', { sideEffect: 'SIDE_EFFECT', parameters: shellSchema }),
      await tool('deploy', {
        sideEffect: 'HIGH_RISK',
        hitl: { approvalText: 'Deploy to production?', rejectPolicy: 'ABORT_SESSION' },
      }),
      await tool('write_note', {
        sideEffect: 'SIDE_EFFECT',
        result: { redactFields: ['token'] },
        parameters: { type: 'object', properties: { q: { type: 'string' }, token: { type: 'string' } } },
      }),
      await tool('big', { result: { maxInlineChars: 1000 } }),
    ];
    deployToolId = tools[2].id;
    agentId = (
      await gw.http
        .post('/api/v1/admin/agents')
        .set(gw.admin)
        .send({ name: 'ops-bot', tenantId: 'acme', maxIterations: 5 })
        .expect(201)
    ).body.id;
    await gw.http
      .put(`/api/v1/admin/agents/${agentId}/tools`)
      .set(gw.admin)
      .send({ toolIds: tools.map((t) => t.id) })
      .expect(200);
  });

  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
    await db?.drop();
  });

  it("creates sessions and refuses another tenant's agent or session", async () => {
    const sessionId = await newSession();
    const got = await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200);
    expect(got.body).toMatchObject({
      id: sessionId,
      agentId,
      status: 'ACTIVE',
      iteration: 0,
      hitlPending: false,
      hitlRequest: null,
      todoList: [],
      activeSkill: null,
    });
    const globex = await createKey(gw, 'globex', 'runtime');
    await gw.http.get(`/api/v1/sessions/${sessionId}`).set(globex).expect(404);
    await gw.http.post('/api/v1/sessions').set(globex).send({ agentId, userId: 'u', permissions: [] }).expect(404);
    await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(globex)
      .send({ iteration: 1, toolCalls: [{ id: 'x', name: 'read_doc', arguments: { q: 'a' } }] })
      .expect(404);
  });

  it('runs a call once and returns the stored result for the same toolCallId', async () => {
    const sessionId = await newSession();
    const first = await act(sessionId, 1, [{ id: 'c-read', name: 'read_doc', arguments: '{"q":"hello"}' }]);
    expect(first.body.status).toBe('COMPLETED');
    expect(first.body.results[0]).toMatchObject({
      toolCallId: 'c-read',
      toolName: 'read_doc',
      status: 'COMPLETED',
      isError: false,
      reused: false,
      attempts: 1,
      truncated: false,
    });
    const again = await act(sessionId, 2, [{ id: 'c-read', name: 'read_doc', arguments: { q: 'hello' } }]);
    expect(again.body.results[0]).toMatchObject({
      reused: true,
      status: 'COMPLETED',
      content: first.body.results[0].content,
    });
    expect(requestsTo('/read_doc?q=hello')).toHaveLength(1);
    const conflict = await act(sessionId, 2, [{ id: 'c-read', name: 'read_doc', arguments: { q: 'other' } }], 409);
    expect(conflict.body.error.code).toBe('TOOL_CALL_CONFLICT');
    const stale = await act(sessionId, 1, [{ id: 'c-new', name: 'read_doc', arguments: { q: 'x' } }], 409);
    expect(stale.body.error.code).toBe('STALE_ITERATION');
    expect((await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime)).body.iteration).toBe(2);
  });

  it('fails schema violations at once, naming them, without calling the tool', async () => {
    const sessionId = await newSession();
    const before = remote.requests.length;
    const res = await act(sessionId, 1, [{ id: 'c-bad', name: 'read_doc', arguments: { q: 5, extra: true } }]);
    expect(res.body.results[0]).toMatchObject({
      status: 'FAILED',
      isError: true,
      attempts: 0,
      errorClass: 'BAD_ARGUMENTS',
    });
    expect(res.body.results[0].content).toMatch(/^执行失败: /);
    expect(res.body.results[0].content).toContain('q: must be string');
    const unknown = await act(sessionId, 1, [{ id: 'c-ghost', name: 'no_such_tool', arguments: {} }]);
    expect(unknown.body.results[0]).toMatchObject({ status: 'FAILED', isError: true });
    expect(remote.requests.length).toBe(before);
    const replay = await act(sessionId, 1, [{ id: 'c-bad', name: 'read_doc', arguments: { q: 5, extra: true } }]);
    expect(replay.body.results[0]).toMatchObject({
      status: 'FAILED',
      reused: true,
      content: res.body.results[0].content,
    });
    // Each refusal is a tool.failed event with its class (none for the replay: it ran nothing).
    await gw.app.get(SessionEventsStore).flush();
    const events = (await gw.http.get(`/api/v1/sessions/${sessionId}/events`).set(runtime).expect(200)).body.items;
    expect(events.map((e: { type: string; data: Record<string, unknown> }) => [e.type, e.data.toolCallId])).toEqual([
      ['tool.failed', 'c-bad'],
      ['tool.failed', 'c-ghost'],
    ]);
    expect(events[0].data).toMatchObject({ tool: 'read_doc', errorClass: 'BAD_ARGUMENTS' });
  });

  it('stops a batch at a risky call, approves exactly that call on resume, then runs the rest', async () => {
    const sessionId = await newSession();
    const res = await act(sessionId, 1, [
      { id: 'b1', name: 'read_doc', arguments: { q: 'before' } },
      { id: 'b2', name: 'shell_run', arguments: { command: 'rm -rf ./build' } },
      { id: 'b3', name: 'read_doc', arguments: { q: 'after' } },
    ]);
    expect(res.body.status).toBe('INTERRUPTED');
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual([
      'COMPLETED',
      'PENDING_APPROVAL',
      'NOT_RUN',
    ]);
    expect(res.body.hitlRequest).toMatchObject({
      requestType: 'TOOL_APPROVAL',
      toolName: 'shell_run',
      toolCallId: 'b2',
      toolParams: { command: 'rm -rf ./build' },
      iteration: 1,
    });
    expect(res.body.hitlRequest.triggerReason).toContain('recursive-delete');
    expect(requestsTo('/shell_run')).toHaveLength(0);

    const session = (await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200)).body;
    expect(session).toMatchObject({ status: 'INTERRUPTED', hitlPending: true, hitlRequest: { toolCallId: 'b2' } });
    expect(
      (await act(sessionId, 2, [{ id: 'b9', name: 'read_doc', arguments: { q: 'z' } }], 409)).body.error.code,
    ).toBe('SESSION_INTERRUPTED');

    const queue = (await gw.http.get('/api/v1/admin/hitl?status=PENDING').set(gw.admin).expect(200)).body;
    const item = queue.items.find((i: { sessionId: string }) => i.sessionId === sessionId);
    expect(item).toMatchObject({
      sessionId,
      agentId,
      toolCallId: 'b2',
      requestType: 'TOOL_APPROVAL',
      status: 'PENDING',
    });
    expect(new Date(item.createdAt).toISOString()).toBe(item.createdAt);

    const wrong = await resume(sessionId, { clientMessageId: 'm-wrong', toolCallId: 'b3' }, 409);
    expect(wrong.body.error.code).toBe('HITL_TOOL_CALL_MISMATCH');
    const approved = await resume(sessionId, { clientMessageId: 'm1', toolCallId: 'b2' });
    expect(approved.body.status).toBe('COMPLETED');
    expect(approved.body.results.map((r: { toolCallId: string; status: string }) => [r.toolCallId, r.status])).toEqual([
      ['b2', 'COMPLETED'],
      ['b3', 'COMPLETED'],
    ]);
    expect(requestsTo('/shell_run')).toHaveLength(1);
    expect(JSON.parse(requestsTo('/shell_run')[0].body)).toEqual({ command: 'rm -rf ./build' });

    const replay = await resume(sessionId, { clientMessageId: 'm1', toolCallId: 'b2' });
    expect(replay.body).toEqual(approved.body);
    expect(requestsTo('/shell_run')).toHaveLength(1);
    expect(requestsTo('/read_doc?q=after')).toHaveLength(1);
    expect((await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime)).body).toMatchObject({
      status: 'ACTIVE',
      hitlPending: false,
      hitlRequest: null,
    });
    const decided = (await gw.http.get('/api/v1/admin/hitl?status=DECIDED').set(gw.admin)).body.items.find(
      (i: { sessionId: string }) => i.sessionId === sessionId,
    );
    expect(decided).toMatchObject({ decision: 'APPROVE', decidedBy: expect.any(String) });
    await resume(sessionId, { clientMessageId: 'm2' }, 409);

    // The session's events, in the order the work happened (written behind each call, so wait for them).
    await gw.app.get(SessionEventsStore).flush();
    const events = (await gw.http.get(`/api/v1/sessions/${sessionId}/events`).set(runtime).expect(200)).body.items;
    expect(
      events.map((e: { type: string; data: { toolCallId?: string } }) => `${e.type} ${e.data.toolCallId}`),
    ).toEqual([
      'tool.started b1',
      'tool.completed b1',
      'hitl.requested b2',
      'hitl.decided b2',
      'tool.started b2',
      'tool.completed b2',
      'tool.started b3',
      'tool.completed b3',
    ]);
    expect(events.map((e: { seq: number }) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(events[3].data).toMatchObject({ decision: 'APPROVE', requestType: 'TOOL_APPROVAL' });
    expect(events[1].data).toMatchObject({ tool: 'read_doc', status: 'COMPLETED', attempts: 1 });
  });

  it('finishes a resume whose process died after persisting the decision, when the same clientMessageId comes again', async () => {
    const sessionId = await newSession();
    const res = await act(sessionId, 1, [{ id: 'cr1', name: 'shell_run', arguments: { command: 'rm -rf ./dist' } }]);
    const requestId = res.body.hitlRequest.id;
    const ds = gw.app.get(DataSource);
    // What a crash right after "decision persisted" leaves behind: the request decided, the claim IN_PROGRESS.
    await ds.query(
      "UPDATE hitl_request SET status = 'DECIDED', decision = 'APPROVE', client_message_id = 'crashed', decided_by = 'k' WHERE id = ?",
      [requestId],
    );
    await ds.query(
      "INSERT INTO resume_record (session_id, client_message_id, state, created_at) VALUES (?, 'crashed', 'IN_PROGRESS', ?)",
      [sessionId, Date.now() - 60_000],
    );
    await ds.query(
      "INSERT INTO resume_record (session_id, client_message_id, state, created_at) VALUES (?, 'young', 'IN_PROGRESS', ?)",
      [sessionId, Date.now()],
    );
    // It had recorded its hitl.decided before it died.
    await recordedBeforeCrash(sessionId, requestId, 'cr1');
    expect((await resume(sessionId, { clientMessageId: 'young' }, 409)).body.error.code).toBe('RESUME_IN_PROGRESS');
    // Another decision than the one saved is refused: the saved one stands.
    const other = await resume(sessionId, { clientMessageId: 'other', decision: 'REJECT' }, 409);
    expect(other.body.error).toMatchObject({ code: 'HITL_ALREADY_DECIDED', details: { decision: 'APPROVE' } });
    const finished = await resume(sessionId, { clientMessageId: 'crashed' });
    expect(finished.body.results[0]).toMatchObject({ toolCallId: 'cr1', status: 'COMPLETED' });
    expect(requestsTo('/shell_run').filter((r) => r.body.includes('./dist'))).toHaveLength(1);
    expect((await resume(sessionId, { clientMessageId: 'crashed' })).body).toEqual(finished.body);
    // A client watching the events sees the decision once.
    expect(await decidedEvents(sessionId)).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ requestId, decision: 'APPROVE' }) }),
    ]);
  });

  it('carries out a decision whose resume died after saving it when the runtime resumes under a new clientMessageId', async () => {
    const sessionId = await newSession();
    const res = await act(sessionId, 1, [{ id: 'lc1', name: 'shell_run', arguments: { command: 'rm -rf ./lost' } }]);
    const requestId = res.body.hitlRequest.id;
    const ds = gw.app.get(DataSource);
    // A resume under 'lost' saved APPROVE; the runtime never got an answer and lost its clientMessageId.
    await ds.query(
      "UPDATE hitl_request SET status = 'DECIDED', decision = 'APPROVE', client_message_id = 'lost', decided_by = 'k' WHERE id = ?",
      [requestId],
    );
    await ds.query(
      "INSERT INTO resume_record (session_id, client_message_id, state, created_at) VALUES (?, 'lost', 'IN_PROGRESS', ?)",
      [sessionId, Date.now()],
    );
    const body = { toolCallId: 'lc1', decision: 'APPROVE' };
    // Its resume may still be carrying it out: nothing runs beside it.
    const busy = await resume(sessionId, { clientMessageId: 'found-1', ...body }, 409);
    expect(busy.body.error.code).toBe('RESUME_IN_PROGRESS');
    expect(requestsTo('/shell_run').filter((r) => r.body.includes('./lost'))).toHaveLength(0);

    // Its claim went stale (the process died): the new resume carries the saved decision out.
    await ds.query("UPDATE resume_record SET created_at = ? WHERE session_id = ? AND client_message_id = 'lost'", [
      Date.now() - 60_000,
      sessionId,
    ]);
    const done = await resume(sessionId, { clientMessageId: 'found-2', ...body });
    expect(done.body).toMatchObject({ status: 'COMPLETED' });
    expect(done.body.results).toEqual([expect.objectContaining({ toolCallId: 'lc1', status: 'COMPLETED' })]);
    expect((await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime)).body).toMatchObject({
      status: 'ACTIVE',
      hitlPending: false,
    });
    // Every key that asked gets that response again; the call ran once.
    expect((await resume(sessionId, { clientMessageId: 'found-2', ...body })).body).toEqual(done.body);
    expect((await resume(sessionId, { clientMessageId: 'lost', ...body })).body).toEqual(done.body);
    expect(requestsTo('/shell_run').filter((r) => r.body.includes('./lost'))).toHaveLength(1);
    // The resume that died had not recorded hitl.decided: the one that carried the decision out did, once.
    expect(await decidedEvents(sessionId)).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ requestId, decision: 'APPROVE', decidedBy: 'k' }) }),
    ]);
  });

  it('carries out on its own a decision whose resume or admin decision died after saving it, once its claim is stale', async () => {
    const ds = gw.app.get(DataSource);
    const recovery = gw.app.get(AbandonedDecisionRecovery);
    const savedUnder = async (sessionId: string, requestId: string, key: string, heartbeat: number) => {
      await ds.query(
        "UPDATE hitl_request SET status = 'DECIDED', decision = 'APPROVE', client_message_id = ?, decided_by = 'k' WHERE id = ?",
        [key, requestId],
      );
      await ds.query(
        "INSERT INTO resume_record (session_id, client_message_id, state, created_at) VALUES (?, ?, 'IN_PROGRESS', ?)",
        [sessionId, key, heartbeat],
      );
    };
    const ran = (marker: string) => requestsTo('/shell_run').filter((r) => r.body.includes(marker));

    const byRuntime = await newSession();
    const first = await act(byRuntime, 1, [
      { id: 'ab1', name: 'shell_run', arguments: { command: 'rm -rf ./abandoned' } },
    ]);
    const byAdmin = await newSession();
    const second = await act(byAdmin, 1, [
      { id: 'ab2', name: 'shell_run', arguments: { command: 'rm -rf ./admin-gone' } },
    ]);
    const adminKey = `admin-decision:${second.body.hitlRequest.id}`;
    // Still carried out by a live resume (its claim renewed): left alone.
    await savedUnder(byRuntime, first.body.hitlRequest.id, 'gone', Date.now());
    await savedUnder(byAdmin, second.body.hitlRequest.id, adminKey, Date.now());
    // The runtime's resume had recorded its hitl.decided before it died, the admin's decision had not.
    await recordedBeforeCrash(byRuntime, first.body.hitlRequest.id, 'ab1');
    expect(await recovery.carryOut()).toBe(0);
    expect(ran('./abandoned')).toHaveLength(0);

    // Both processes died: their claims are no longer renewed.
    await ds.query('UPDATE resume_record SET created_at = ? WHERE session_id IN (?, ?)', [
      Date.now() - 60_000,
      byRuntime,
      byAdmin,
    ]);
    expect(await recovery.carryOut()).toBe(2);
    expect(ran('./abandoned')).toHaveLength(1);
    expect(ran('./admin-gone')).toHaveLength(1);
    for (const sessionId of [byRuntime, byAdmin])
      expect((await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime)).body).toMatchObject({
        status: 'ACTIVE',
        hitlPending: false,
      });
    // The runtime sending its key again gets the outcome; the admin's decision again gets it too; nothing runs twice.
    const again = await resume(byRuntime, { clientMessageId: 'gone', decision: 'APPROVE' });
    expect(again.body.results).toEqual([expect.objectContaining({ toolCallId: 'ab1', status: 'COMPLETED' })]);
    const adminAgain = await gw.http
      .post(`/api/v1/admin/hitl/${second.body.hitlRequest.id}/decision`)
      .set(gw.admin)
      .send({ decision: 'APPROVE', reviewer: 'ops' })
      .expect(200);
    expect(adminAgain.body.results).toEqual([expect.objectContaining({ toolCallId: 'ab2', status: 'COMPLETED' })]);
    expect(await recovery.carryOut()).toBe(0);
    expect(ran('./abandoned')).toHaveLength(1);
    expect(ran('./admin-gone')).toHaveLength(1);
    // Each decided request has exactly one hitl.decided.
    for (const [sessionId, res] of [
      [byRuntime, first],
      [byAdmin, second],
    ] as const)
      expect(await decidedEvents(sessionId)).toEqual([
        expect.objectContaining({ data: expect.objectContaining({ requestId: res.body.hitlRequest.id }) }),
      ]);
  });

  it("carries out a saved REJECT with the reviewer's saved message, whatever message the new resume sends", async () => {
    const sessionId = await newSession();
    const res = await act(sessionId, 1, [{ id: 'lr1', name: 'shell_run', arguments: { command: 'rm -rf ./kept' } }]);
    const ds = gw.app.get(DataSource);
    await ds.query(
      "UPDATE hitl_request SET status = 'DECIDED', decision = 'REJECT', decision_message = 'not on a Friday', client_message_id = 'lost', decided_by = 'k' WHERE id = ?",
      [res.body.hitlRequest.id],
    );
    await ds.query(
      "INSERT INTO resume_record (session_id, client_message_id, state, created_at) VALUES (?, 'lost', 'IN_PROGRESS', ?)",
      [sessionId, Date.now() - 60_000],
    );
    const rejected = await resume(sessionId, {
      clientMessageId: 'again',
      decision: 'REJECT',
      message: 'changed my mind',
    });
    expect(rejected.body.results[0]).toMatchObject({ toolCallId: 'lr1', status: 'REJECTED' });
    expect(rejected.body.results[0].content).toContain('not on a Friday');
    expect(requestsTo('/shell_run').filter((r) => r.body.includes('./kept'))).toHaveLength(0);
  });

  it("rejects with the reviewer's message and applies ABORT_SESSION", async () => {
    const sessionId = await newSession();
    // ABORT_SESSION closes the session as DELETE does: what other modules do on a close (e.g. remove the workspace) runs.
    const closed: string[] = [];
    gw.app.get(SessionCloseHooks).register('test', async (s) => void closed.push(s.id));
    const res = await act(sessionId, 1, [
      { id: 'd1', name: 'deploy', arguments: { q: 'v2' } },
      { id: 'd2', name: 'read_doc', arguments: { q: 'post' } },
    ]);
    expect(res.body.hitlRequest).toMatchObject({
      requestType: 'TOOL_APPROVAL',
      promptMessage: 'Deploy to production?',
      toolCallId: 'd1',
    });
    const bad = await resume(sessionId, { clientMessageId: 'r0', decision: 'MARK_DONE' }, 400);
    expect(bad.body.error.details.fields[0].field).toBe('decision');
    const rejected = await resume(sessionId, { clientMessageId: 'r1', decision: 'REJECT', message: 'not on a Friday' });
    expect(rejected.body.results[0]).toMatchObject({ toolCallId: 'd1', status: 'REJECTED', isError: true });
    expect(rejected.body.results[0].content).toContain('deploy');
    expect(rejected.body.results[0].content).toContain('d1');
    expect(rejected.body.results[0].content).toContain('not on a Friday');
    expect(rejected.body.results[1]).toMatchObject({ toolCallId: 'd2', status: 'NOT_RUN' });
    const log = (await gw.http.get(`/api/v1/admin/tool-calls?sessionId=${sessionId}`).set(gw.admin).expect(200)).body
      .items;
    expect(
      log.map((r: { toolCallId: string; toolId: string | null; status: string; entry: string }) => [
        r.toolCallId,
        r.toolId,
        r.status,
        r.entry,
      ]),
    ).toEqual([
      ['d1', deployToolId, 'PENDING_APPROVAL', 'ACT'],
      ['d1', deployToolId, 'REJECTED', 'RESUME'],
    ]);
    expect(requestsTo('/deploy')).toHaveLength(0);
    expect((await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime)).body.status).toBe('CLOSED');
    expect(closed).toEqual([sessionId]);
    expect(
      (await act(sessionId, 2, [{ id: 'd3', name: 'read_doc', arguments: { q: 'z' } }], 409)).body.error.code,
    ).toBe('SESSION_CLOSED');
  });

  it('continues the batch after a rejection under RETURN_ERROR', async () => {
    const sessionId = await newSession();
    await gw.http
      .patch(`/api/v1/admin/agents/${agentId}`)
      .set(gw.admin)
      .send({ sideEffectPolicy: 'APPROVE_SIDE_EFFECTS' })
      .expect(200);
    try {
      const res = await act(sessionId, 1, [
        { id: 'w1', name: 'write_note', arguments: { q: 'n1' } },
        { id: 'w2', name: 'read_doc', arguments: { q: 'w2' } },
      ]);
      expect(res.body.hitlRequest.triggerReason).toContain('APPROVE_SIDE_EFFECTS');
      const rejected = await resume(sessionId, { clientMessageId: 'x1', decision: 'REJECT' });
      expect(rejected.body.results.map((r: { status: string }) => r.status)).toEqual(['REJECTED', 'COMPLETED']);
      expect((await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime)).body.status).toBe('ACTIVE');
      const reused = await act(sessionId, 2, [{ id: 'w1', name: 'write_note', arguments: { q: 'n1' } }]);
      expect(reused.body.results[0]).toMatchObject({ status: 'REJECTED', reused: true });
      expect(requestsTo('/write_note')).toHaveLength(0);
    } finally {
      await gw.http
        .patch(`/api/v1/admin/agents/${agentId}`)
        .set(gw.admin)
        .send({ sideEffectPolicy: 'ALLOW' })
        .expect(200);
    }
  });

  describe('a side-effecting call left STARTED by a dead process', () => {
    const plantStarted = async (
      sessionId: string,
      toolCallId: string,
      name: string,
      args: Record<string, unknown>,
      sideEffect = 'SIDE_EFFECT',
    ) => {
      const { callFingerprint } = await import('@app/modules/loop-acting/journal/journal-fingerprint');
      const { canonicalJson } = await import('@app/common/canonical-json');
      const past = Date.now() - 60_000;
      await gw.app.get(DataSource).query(
        `INSERT INTO tool_call_journal (tenant_id, session_id, tool_call_id, tool_name, tool_id, fingerprint, arguments_json, side_effect, state, result_status, attempts, iteration, owner, lease_expires_at, started_at, finished_at, duration_ms, is_error, error_class, content, total_chars, result_chunks, inline_limit)
         VALUES (?, ?, ?, ?, NULL, ?, ?, ?, 'STARTED', NULL, 0, 1, 'dead-instance', ?, ?, NULL, NULL, 0, NULL, NULL, 0, 0, 20000)`,
        ['acme', sessionId, toolCallId, name, callFingerprint(name, args), canonicalJson(args), sideEffect, past, past],
      );
    };

    it("becomes UNKNOWN_OUTCOME and MARK_DONE records the human's message as the result", async () => {
      const sessionId = await newSession();
      await plantStarted(sessionId, 'u1', 'write_note', { q: 'once' });
      const res = await act(sessionId, 1, [{ id: 'u1', name: 'write_note', arguments: { q: 'once' } }]);
      expect(res.body.status).toBe('INTERRUPTED');
      expect(res.body.hitlRequest).toMatchObject({
        requestType: 'UNKNOWN_OUTCOME',
        toolCallId: 'u1',
        toolName: 'write_note',
      });
      expect((await resume(sessionId, { clientMessageId: 'k0' }, 400)).body.error.code).toBe('VALIDATION_FAILED');
      const done = await resume(sessionId, {
        clientMessageId: 'k1',
        decision: 'MARK_DONE',
        message: 'checked: the note exists',
      });
      expect(done.body.results[0]).toMatchObject({
        toolCallId: 'u1',
        status: 'COMPLETED',
        content: 'checked: the note exists',
      });
      expect(requestsTo('/write_note')).toHaveLength(0);
      const journal = (await gw.http.get(`/api/v1/admin/sessions/${sessionId}/journal`).set(gw.admin).expect(200)).body
        .items;
      expect(journal).toEqual([
        expect.objectContaining({ toolCallId: 'u1', state: 'COMPLETED', toolName: 'write_note' }),
      ]);
    });

    it('RETRY runs it exactly once more', async () => {
      const sessionId = await newSession();
      await plantStarted(sessionId, 'u2', 'write_note', { q: 'retry-me' });
      await act(sessionId, 1, [{ id: 'u2', name: 'write_note', arguments: { q: 'retry-me' } }]);
      const retried = await resume(sessionId, { clientMessageId: 'k2', decision: 'RETRY' });
      expect(retried.body.results[0]).toMatchObject({ toolCallId: 'u2', status: 'COMPLETED' });
      await resume(sessionId, { clientMessageId: 'k2', decision: 'RETRY' });
      expect(requestsTo('/write_note').filter((r) => r.body.includes('retry-me'))).toHaveLength(1);
    });

    it('a READ_ONLY call simply runs again', async () => {
      const sessionId = await newSession();
      await plantStarted(sessionId, 'u3', 'read_doc', { q: 'ro' }, 'READ_ONLY');
      const res = await act(sessionId, 1, [{ id: 'u3', name: 'read_doc', arguments: { q: 'ro' } }]);
      expect(res.body.results[0]).toMatchObject({ status: 'COMPLETED', reused: false });
      expect(requestsTo('/read_doc?q=ro')).toHaveLength(1);
    });
  });

  it('truncates a large result and pages the rest, scoped to the tenant', async () => {
    const sessionId = await newSession();
    const res = await act(sessionId, 1, [{ id: 'g1', name: 'big', arguments: { q: 'x' } }]);
    const result = res.body.results[0];
    expect(result).toMatchObject({ truncated: true, totalChars: 50_011 });
    expect(result.content).toContain('READ_TOOL_RESULT');
    let text = '';
    for (let offset = 0, hasMore = true; hasMore;) {
      const page = (
        await gw.http
          .get(`/api/v1/sessions/${sessionId}/tool-results/g1?offset=${offset}&limit=20000`)
          .set(runtime)
          .expect(200)
      ).body;
      expect(page).toMatchObject({ toolCallId: 'g1', offset, limit: 20000, totalChars: 50_011 });
      text += page.content;
      offset += page.content.length;
      hasMore = page.hasMore;
    }
    expect(JSON.parse(text).text).toHaveLength(50_000);
    const globex = await createKey(gw, 'globex', 'runtime');
    await gw.http.get(`/api/v1/sessions/${sessionId}/tool-results/g1`).set(globex).expect(404);
    await gw.http.get(`/api/v1/sessions/${sessionId}/tool-results/nope`).set(runtime).expect(404);
    await gw.http.get(`/api/v1/sessions/${sessionId}/tool-results/g1?limit=0`).set(runtime).expect(400);
  });

  it('lets the model page a truncated result with READ_TOOL_RESULT and keep a todo list', async () => {
    const sessionId = await newSession();
    await act(sessionId, 1, [{ id: 'big1', name: 'big', arguments: { q: 'x' } }]);
    const page = await act(sessionId, 2, [
      { id: 'rd1', name: 'READ_TOOL_RESULT', arguments: { toolCallId: 'big1', offset: 1000, limit: 500 } },
    ]);
    expect(page.body.results[0]).toMatchObject({ status: 'COMPLETED', isError: false });
    expect(page.body.results[0].content.startsWith('x'.repeat(500) + '\n\n[characters 1000-1500 of 50011')).toBe(true);
    // The arguments to read on are JSON the model can copy, also for a toolCallId with a quote in it.
    await act(sessionId, 2, [{ id: 'big"2', name: 'big', arguments: { q: 'x' } }]);
    const quoted = await act(sessionId, 2, [
      { id: 'rd3', name: 'READ_TOOL_RESULT', arguments: { toolCallId: 'big"2', limit: 10 } },
    ]);
    const readOn = /read on with (\{.*\})\]$/.exec(quoted.body.results[0].content)?.[1];
    expect(JSON.parse(readOn ?? 'null')).toEqual({ toolCallId: 'big"2', offset: 10 });
    const other = await newSession();
    const foreign = await act(other, 1, [{ id: 'rd2', name: 'READ_TOOL_RESULT', arguments: { toolCallId: 'big1' } }]);
    expect(foreign.body.results[0]).toMatchObject({ status: 'FAILED', isError: true });
    // What was wrong and what to give instead.
    expect(foreign.body.results[0].content).toContain(
      `No finished result for toolCallId big1 in session ${other}: only a call that finished`,
    );
    expect(foreign.body.results[0].content).toContain('use the toolCallId of a finished act result');

    const todoTool = (await gw.http.get('/api/v1/admin/tools?q=UPDATE_TODO_LIST').set(gw.admin)).body.items[0];
    await gw.http.post(`/api/v1/admin/agents/${agentId}/tools`).set(gw.admin).send({ toolId: todoTool.id }).expect(200);
    const items = [
      { content: 'read docs', status: 'completed' },
      { content: 'ship', status: 'in_progress' },
    ];
    const todo = await act(sessionId, 3, [{ id: 'todo1', name: 'UPDATE_TODO_LIST', arguments: { items } }]);
    expect(todo.body.results[0]).toMatchObject({
      status: 'COMPLETED',
      content: 'Todo list updated: 2 item(s), 1 completed.',
    });
    const session = (await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200)).body;
    expect(session.todoList).toEqual([
      { id: '1', content: 'read docs', status: 'completed' },
      { id: '2', content: 'ship', status: 'in_progress' },
    ]);
    const events = (await gw.http.get(`/api/v1/sessions/${sessionId}/events`).set(runtime).expect(200)).body.items;
    expect(events.filter((e: { type: string }) => e.type === 'todo.updated')).toEqual([
      expect.objectContaining({ data: { toolCallId: 'todo1', items: 2, completed: 1 } }),
    ]);
    // The next round's reminders carry the open items, so a run whose oldest turns no longer fit still sees its plan.
    const reminders = async () =>
      (
        await gw.http
          .post(`/api/v1/agents/${agentId}/tool-specs`)
          .set(runtime)
          .send({ userId: 'ignored', permissions: [], sessionId })
          .expect(200)
      ).body.reminders as string[];
    expect(await reminders()).toEqual([
      'Your todo list (keep it current with UPDATE_TODO_LIST): 1 open, 1 completed.\n- [in_progress] ship',
    ]);

    // Items keep their ids apart: one left without an id never takes another's.
    const mixed = [
      { id: '2', content: 'write tests', status: 'pending' },
      { content: 'fix', status: 'pending' },
      { content: 'ship', status: 'pending' },
    ];
    await act(sessionId, 4, [{ id: 'todo2', name: 'UPDATE_TODO_LIST', arguments: { items: mixed } }]);
    const ids = (await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200)).body.todoList.map(
      (item: { id: string }) => item.id,
    );
    expect(ids).toEqual(['2', '1', '3']);
    const twice = await act(sessionId, 5, [
      {
        id: 'todo3',
        name: 'UPDATE_TODO_LIST',
        arguments: {
          items: [
            { id: 'a', content: 'one', status: 'pending' },
            { id: 'a', content: 'two', status: 'pending' },
          ],
        },
      },
    ]);
    expect(twice.body.results[0]).toMatchObject({ status: 'FAILED', isError: true });
    expect(twice.body.results[0].content).toContain('todo item id "a" is given twice');
    expect((await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200)).body.todoList).toHaveLength(3);
  });

  it('pauses at the iteration budget and continues on resume without approving anything', async () => {
    const sessionId = await newSession();
    const res = await act(sessionId, 6, [{ id: 'p1', name: 'read_doc', arguments: { q: 'p1' } }]);
    expect(res.body).toMatchObject({
      status: 'INTERRUPTED',
      hitlRequest: { requestType: 'CHECKPOINT_PAUSE', toolCallId: null },
    });
    expect(res.body.results[0].status).toBe('NOT_RUN');
    const resumed = await resume(sessionId, { clientMessageId: 'cp1' });
    expect(resumed.body.results[0]).toMatchObject({ toolCallId: 'p1', status: 'COMPLETED' });
    const risky = await act(sessionId, 7, [
      { id: 'p2', name: 'shell_run', arguments: { command: 'git push --force origin main' } },
    ]);
    expect(risky.body.hitlRequest).toMatchObject({ requestType: 'TOOL_APPROVAL', toolCallId: 'p2' });
    await resume(sessionId, { clientMessageId: 'cp2', decision: 'REJECT' });
    // The budget was extended by the agent's maxIterations (5) from iteration 6: 11 passes, 12 pauses again.
    expect((await act(sessionId, 11, [{ id: 'p3', name: 'read_doc', arguments: { q: 'p3' } }])).body.status).toBe(
      'COMPLETED',
    );
    expect(
      (await act(sessionId, 12, [{ id: 'p4', name: 'read_doc', arguments: { q: 'p4' } }])).body.hitlRequest,
    ).toMatchObject({ requestType: 'CHECKPOINT_PAUSE' });
  });

  it('refuses a reused toolCallId with other arguments before pausing at the budget, so no pause is left undecidable', async () => {
    const sessionId = await newSession();
    await act(sessionId, 1, [{ id: 'w1', name: 'read_doc', arguments: { q: 'first' } }]);
    const conflict = await act(sessionId, 6, [{ id: 'w1', name: 'read_doc', arguments: { q: 'other' } }], 409);
    expect(conflict.body.error.code).toBe('TOOL_CALL_CONFLICT');
    // Nothing paused: the session takes the next call, and a pause with a fresh id resumes and runs it.
    const view = await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200);
    expect(view.body.status).not.toBe('INTERRUPTED');
    const paused = await act(sessionId, 6, [{ id: 'w2', name: 'read_doc', arguments: { q: 'second' } }]);
    expect(paused.body.hitlRequest).toMatchObject({ requestType: 'CHECKPOINT_PAUSE' });
    const resumed = await resume(sessionId, { clientMessageId: 'w-cp' });
    expect(resumed.body.results[0]).toMatchObject({ toolCallId: 'w2', status: 'COMPLETED' });
  });

  it('logs every call with redacted arguments', async () => {
    const sessionId = await newSession();
    await act(sessionId, 1, [{ id: 'l1', name: 'write_note', arguments: { q: 'log me', token: 'hunter2' } }]);
    const rows = (await gw.http.get(`/api/v1/admin/tool-calls?sessionId=${sessionId}`).set(gw.admin).expect(200)).body
      .items;
    expect(rows).toEqual([
      expect.objectContaining({
        toolCallId: 'l1',
        toolName: 'write_note',
        status: 'COMPLETED',
        attempts: 1,
        entry: 'ACT',
      }),
    ]);
    expect(rows[0].arguments).toEqual({ q: 'log me', token: '***' });
    expect(JSON.stringify(rows)).not.toContain('hunter2');
  });

  it('validates act and resume bodies', async () => {
    const sessionId = await newSession();
    const res = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: -1, toolCalls: [{ id: '', name: 'x', arguments: 5 }] })
      .expect(400);
    const fields = res.body.error.details.fields.map((f: { field: string }) => f.field).sort();
    expect(fields).toEqual(['iteration', 'toolCalls.0.arguments', 'toolCalls.0.id']);
    const dup = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({
        iteration: 1,
        toolCalls: [
          { id: 'a', name: 'read_doc', arguments: {} },
          { id: 'a', name: 'read_doc', arguments: {} },
        ],
      })
      .expect(400);
    expect(dup.body.error.message).toContain('appears twice');
    await gw.http.post(`/api/v1/sessions/${sessionId}/resume`).set(runtime).send({ decision: 'APPROVE' }).expect(400);
    expect((await resume(sessionId, { clientMessageId: 'nothing-pending' }, 409)).body.error).toMatchObject({
      code: 'NO_PENDING_REQUEST',
      message: expect.stringMatching(
        new RegExp(`waits for no decision; submit tool calls with POST /api/v1/sessions/${sessionId}/act\\.$`),
      ),
    });
  });
});
