import { DataSource } from 'typeorm';
import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';
import { createKey, startTestGateway, TestGateway, toolBody, SHELL_TOOL_FIELDS } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import { callFingerprint } from '@app/modules/loop-acting/journal/journal-fingerprint';
import { canonicalJson } from '@app/common/canonical-json';

type Header = { Authorization: string };

describeEachDialect('HITL decided by an admin (POST /admin/hitl/{id}/decision, hitlReviewer)', (dialect) => {
  let db: TestDatabase;
  let gw: TestGateway;
  let remote: RecordingHttpServer;
  let runtime: Header;
  let acmeAdmin: Header;
  let globexAdmin: Header;
  let runtimeAgent: string;
  let adminAgent: string;
  const requestsTo = (path: string) => remote.requests.filter((r) => r.url.startsWith(path));

  const tool = async (name: string, overrides: Record<string, unknown>) =>
    (
      await gw.http
        .post('/api/v1/admin/tools')
        .set(gw.admin)
        .send(toolBody({ name, tenantId: 'acme', endpoint: remote.url(`/${name}`), ...overrides }))
        .expect(201)
    ).body;
  const newSession = async (agentId: string) =>
    (await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u1', permissions: [] }).expect(201))
      .body.id as string;
  const act = (
    sessionId: string,
    iteration: number,
    toolCalls: Array<{ id: string; name: string; arguments: unknown }>,
  ) => gw.http.post(`/api/v1/sessions/${sessionId}/act`).set(runtime).send({ iteration, toolCalls }).expect(200);
  const decide = (requestId: string, key: Header, body: Record<string, unknown>, expected = 200) =>
    gw.http.post(`/api/v1/admin/hitl/${requestId}/decision`).set(key).send(body).expect(expected);
  const session = async (id: string) => (await gw.http.get(`/api/v1/sessions/${id}`).set(runtime).expect(200)).body;
  const queueItem = async (requestId: string) =>
    (await gw.http.get('/api/v1/admin/hitl?pageSize=100').set(gw.admin).expect(200)).body.items.find(
      (i: { id: string }) => i.id === requestId,
    );
  /** A risky call (rm -rf) between two reads: INTERRUPTED at the second call. */
  const interruptedBatch = async (agentId: string, tag: string) => {
    const sessionId = await newSession(agentId);
    const res = await act(sessionId, 1, [
      { id: `${tag}-1`, name: 'read_doc', arguments: { q: `${tag}-before` } },
      { id: `${tag}-2`, name: 'shell_run', arguments: { command: `rm -rf ./${tag}` } },
      { id: `${tag}-3`, name: 'read_doc', arguments: { q: `${tag}-after` } },
    ]);
    expect(res.body.status).toBe('INTERRUPTED');
    return { sessionId, requestId: res.body.hitlRequest.id as string };
  };

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    remote.handler = (req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true, path: req.url, size: req.body.length }));
    };
    db = await createTestDatabaseUrl(dialect);
    gw = await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
    runtime = await createKey(gw, 'acme', 'runtime');
    acmeAdmin = await createKey(gw, 'acme', 'admin');
    globexAdmin = await createKey(gw, 'globex', 'admin');
    const tools = [
      await tool('read_doc', { httpMethod: 'GET' }),
      await tool('shell_run', {
        ...SHELL_TOOL_FIELDS,
      }),
      await tool('write_note', { sideEffect: 'SIDE_EFFECT' }),
    ];
    runtimeAgent = (
      await gw.http
        .post('/api/v1/admin/agents')
        .set(gw.admin)
        .send({ name: 'rt-reviewed', tenantId: 'acme', maxIterations: 3 })
        .expect(201)
    ).body.id;
    adminAgent = (
      await gw.http
        .post('/api/v1/admin/agents')
        .set(gw.admin)
        .send({ name: 'admin-reviewed', tenantId: 'acme', maxIterations: 3, hitlReviewer: 'ADMIN' })
        .expect(201)
    ).body.id;
    for (const id of [runtimeAgent, adminAgent])
      await gw.http
        .put(`/api/v1/admin/agents/${id}/tools`)
        .set(gw.admin)
        .send({ toolIds: tools.map((t) => t.id) })
        .expect(200);
  });

  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
    await db?.drop();
  });

  it("keeps an agent's hitlReviewer on POST, PATCH and GET (default RUNTIME) and refuses other values", async () => {
    expect(
      (await gw.http.get(`/api/v1/admin/agents/${runtimeAgent}`).set(gw.admin).expect(200)).body.hitlReviewer,
    ).toBe('RUNTIME');
    expect((await gw.http.get(`/api/v1/admin/agents/${adminAgent}`).set(gw.admin).expect(200)).body.hitlReviewer).toBe(
      'ADMIN',
    );
    const created = (
      await gw.http.post('/api/v1/admin/agents').set(acmeAdmin).send({ name: 'flip', tenantId: 'acme' }).expect(201)
    ).body;
    expect(created.hitlReviewer).toBe('RUNTIME');
    expect(
      (
        await gw.http
          .patch(`/api/v1/admin/agents/${created.id}`)
          .set(acmeAdmin)
          .send({ hitlReviewer: 'ADMIN' })
          .expect(200)
      ).body.hitlReviewer,
    ).toBe('ADMIN');
    expect((await gw.http.get(`/api/v1/admin/agents/${created.id}`).set(acmeAdmin).expect(200)).body.hitlReviewer).toBe(
      'ADMIN',
    );
    const bad = await gw.http
      .patch(`/api/v1/admin/agents/${created.id}`)
      .set(acmeAdmin)
      .send({ hitlReviewer: 'NOBODY' })
      .expect(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
    expect(bad.body.error.message).toContain('hitlReviewer');
  });

  it("an admin of the request's tenant approves: the call runs once, the answer is resume's, decidedBy names the reviewer and the key", async () => {
    const { sessionId, requestId } = await interruptedBatch(runtimeAgent, 'ap');
    expect(requestsTo('/shell_run')).toHaveLength(0);
    const approved = await decide(requestId, acmeAdmin, { decision: 'APPROVE', reviewer: 'alice@acme' });
    expect(approved.body.status).toBe('COMPLETED');
    expect(approved.body.results.map((r: { toolCallId: string; status: string }) => [r.toolCallId, r.status])).toEqual([
      ['ap-2', 'COMPLETED'],
      ['ap-3', 'COMPLETED'],
    ]);
    expect(requestsTo('/shell_run')).toHaveLength(1);
    expect(JSON.parse(requestsTo('/shell_run')[0].body)).toEqual({ command: 'rm -rf ./ap' });

    // The same decision again (a retried HTTP call) is idempotent: the same answer, nothing runs twice.
    expect((await decide(requestId, acmeAdmin, { decision: 'APPROVE', reviewer: 'alice@acme' })).body).toEqual(
      approved.body,
    );
    expect(requestsTo('/shell_run')).toHaveLength(1);
    expect(requestsTo('/read_doc?q=ap-after')).toHaveLength(1);
    // Another decision on a decided request is a conflict, naming who decided.
    const other = await decide(requestId, gw.admin, { decision: 'REJECT', reviewer: 'bob' }, 409);
    expect(other.body.error.code).toBe('HITL_ALREADY_DECIDED');
    expect(other.body.error.message).toContain('alice@acme');

    expect(await session(sessionId)).toMatchObject({ status: 'ACTIVE', hitlPending: false, hitlRequest: null });
    const item = await queueItem(requestId);
    expect(item).toMatchObject({
      status: 'DECIDED',
      decision: 'APPROVE',
      decidedBy: expect.stringMatching(/^alice@acme \(key [0-9a-f-]{36}\)$/),
    });
    // A runtime's resume afterwards finds nothing pending.
    await gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(runtime)
      .send({ clientMessageId: 'late' })
      .expect(409);
  });

  it("another tenant's admin gets 404 and a runtime key 403; nothing runs; the platform key may decide", async () => {
    const { sessionId, requestId } = await interruptedBatch(runtimeAgent, 'iso');
    expect(
      (await decide(requestId, globexAdmin, { decision: 'APPROVE', reviewer: 'mallory' }, 404)).body.error.code,
    ).toBe('NOT_FOUND');
    await decide(requestId, runtime, { decision: 'APPROVE', reviewer: 'self' }, 403);
    await decide('00000000-0000-0000-0000-000000000000', gw.admin, { decision: 'APPROVE', reviewer: 'x' }, 404);
    expect(requestsTo('/shell_run').filter((r) => r.body.includes('./iso'))).toHaveLength(0);
    expect(await session(sessionId)).toMatchObject({ status: 'INTERRUPTED', hitlRequest: { id: requestId } });
    const globexQueue = (await gw.http.get('/api/v1/admin/hitl').set(globexAdmin).expect(200)).body;
    expect(globexQueue.items).toEqual([]);

    const rejected = await decide(requestId, gw.admin, {
      decision: 'REJECT',
      message: 'not on prod',
      reviewer: 'ops-lead',
    });
    expect(rejected.body.results[0]).toMatchObject({ toolCallId: 'iso-2', status: 'REJECTED', isError: true });
    expect(rejected.body.results[0].content).toContain('not on prod');
    expect(requestsTo('/shell_run').filter((r) => r.body.includes('./iso'))).toHaveLength(0);
    expect((await queueItem(requestId)).decidedBy).toBe('ops-lead (key platform-admin)');
  });

  it('validates the decision body, naming each problem', async () => {
    const { requestId } = await interruptedBatch(runtimeAgent, 'val');
    const missing = await decide(requestId, gw.admin, { decision: 'APPROVE' }, 400);
    expect(missing.body.error.message).toContain('reviewer');
    const wrongKind = await decide(requestId, gw.admin, { decision: 'MARK_DONE', reviewer: 'r' }, 400);
    expect(wrongKind.body.error.message).toMatch(/TOOL_APPROVAL request takes APPROVE, REJECT, not MARK_DONE/);
    const bidi = await decide(requestId, gw.admin, { decision: 'APPROVE', reviewer: 'eve\u202Eevil' }, 400);
    expect(bidi.body.error.message).toContain('reviewer');
    // A refused body decides nothing: the request is still pending and can be decided.
    await decide(requestId, gw.admin, { decision: 'APPROVE', reviewer: 'r' });
  });

  describe('hitlReviewer ADMIN', () => {
    it('a runtime resume of a risky call → 403 HITL_ADMIN_REVIEW_REQUIRED and nothing runs; an admin then approves it', async () => {
      const { sessionId, requestId } = await interruptedBatch(adminAgent, 'adm');
      for (const decision of [undefined, 'APPROVE', 'REJECT']) {
        const refused = await gw.http
          .post(`/api/v1/sessions/${sessionId}/resume`)
          .set(runtime)
          .send({ clientMessageId: 'self-approve', ...(decision ? { decision } : {}) })
          .expect(403);
        expect(refused.body.error.code).toBe('HITL_ADMIN_REVIEW_REQUIRED');
        expect(refused.body.error.message).toContain(`/api/v1/admin/hitl/${requestId}/decision`);
      }
      expect(requestsTo('/shell_run').filter((r) => r.body.includes('./adm'))).toHaveLength(0);
      expect(requestsTo('/read_doc?q=adm-after')).toHaveLength(0);
      expect(await session(sessionId)).toMatchObject({ status: 'INTERRUPTED', hitlRequest: { id: requestId } });
      expect(await queueItem(requestId)).toMatchObject({ status: 'PENDING', decision: null });

      const approved = await decide(requestId, acmeAdmin, { decision: 'APPROVE', reviewer: 'carol' });
      expect(approved.body.results.map((r: { status: string }) => r.status)).toEqual(['COMPLETED', 'COMPLETED']);
      expect(requestsTo('/shell_run').filter((r) => r.body.includes('./adm'))).toHaveLength(1);
    });

    it('a runtime may still continue a CHECKPOINT_PAUSE (it approves nothing)', async () => {
      const sessionId = await newSession(adminAgent);
      const paused = await act(sessionId, 4, [{ id: 'cp-1', name: 'read_doc', arguments: { q: 'cp' } }]);
      expect(paused.body.hitlRequest.requestType).toBe('CHECKPOINT_PAUSE');
      const resumed = await gw.http
        .post(`/api/v1/sessions/${sessionId}/resume`)
        .set(runtime)
        .send({ clientMessageId: 'go-on' })
        .expect(200);
      expect(resumed.body).toMatchObject({
        status: 'COMPLETED',
        results: [{ toolCallId: 'cp-1', status: 'COMPLETED' }],
      });
    });

    it("an admin continues a CHECKPOINT_PAUSE with the contract's APPROVE (or CONTINUE); it approves nothing; REJECT is refused", async () => {
      const sessionId = await newSession(adminAgent);
      const paused = await act(sessionId, 4, [{ id: 'cp-a1', name: 'read_doc', arguments: { q: 'cp-a' } }]);
      const requestId = paused.body.hitlRequest.id as string;
      expect(paused.body.hitlRequest.requestType).toBe('CHECKPOINT_PAUSE');
      const refused = await decide(requestId, acmeAdmin, { decision: 'REJECT', reviewer: 'carol' }, 400);
      expect(refused.body.error.message).toMatch(/CHECKPOINT_PAUSE request takes CONTINUE, APPROVE, not REJECT/);
      expect(await queueItem(requestId)).toMatchObject({ status: 'PENDING', decision: null });

      const continued = await decide(requestId, acmeAdmin, { decision: 'APPROVE', reviewer: 'carol' });
      expect(continued.body).toMatchObject({
        status: 'COMPLETED',
        results: [{ toolCallId: 'cp-a1', status: 'COMPLETED' }],
      });
      expect(requestsTo('/read_doc?q=cp-a')).toHaveLength(1);
      expect(await queueItem(requestId)).toMatchObject({ status: 'DECIDED', decision: 'CONTINUE' });
      // It approved nothing: the next risky call still asks.
      const risky = await act(sessionId, 5, [{ id: 'cp-a2', name: 'shell_run', arguments: { command: 'rm -rf ./x' } }]);
      expect(risky.body.hitlRequest).toMatchObject({ requestType: 'TOOL_APPROVAL', toolCallId: 'cp-a2' });
    });

    it("an UNKNOWN_OUTCOME left by a dead process: the runtime cannot decide it, an admin's RETRY runs it exactly once", async () => {
      const sessionId = await newSession(adminAgent);
      const args = { q: 'once-only' };
      const past = Date.now() - 60_000;
      await gw.app.get(DataSource).query(
        `INSERT INTO tool_call_journal (tenant_id, session_id, tool_call_id, tool_name, tool_id, fingerprint, arguments_json, side_effect, state, result_status, attempts, iteration, owner, lease_expires_at, started_at, finished_at, duration_ms, is_error, error_class, content, total_chars, result_chunks, inline_limit)
         VALUES (?, ?, ?, ?, NULL, ?, ?, 'SIDE_EFFECT', 'STARTED', NULL, 0, 1, 'dead-instance', ?, ?, NULL, NULL, 0, NULL, NULL, 0, 0, 20000)`,
        ['acme', sessionId, 'uo-1', 'write_note', callFingerprint('write_note', args), canonicalJson(args), past, past],
      );
      const res = await act(sessionId, 1, [{ id: 'uo-1', name: 'write_note', arguments: args }]);
      expect(res.body.hitlRequest.requestType).toBe('UNKNOWN_OUTCOME');
      const refused = await gw.http
        .post(`/api/v1/sessions/${sessionId}/resume`)
        .set(runtime)
        .send({ clientMessageId: 'r1', decision: 'MARK_DONE' })
        .expect(403);
      expect(refused.body.error.code).toBe('HITL_ADMIN_REVIEW_REQUIRED');
      const retried = await decide(res.body.hitlRequest.id, acmeAdmin, { decision: 'RETRY', reviewer: 'dave' });
      expect(retried.body.results[0]).toMatchObject({ toolCallId: 'uo-1', status: 'COMPLETED' });
      await decide(res.body.hitlRequest.id, acmeAdmin, { decision: 'RETRY', reviewer: 'dave' });
      expect(requestsTo('/write_note').filter((r) => r.body.includes('once-only'))).toHaveLength(1);
    });
  });

  it('finishes an admin decision whose process died after persisting it, when the same decision is sent again (the same records as resume)', async () => {
    const { sessionId, requestId } = await interruptedBatch(runtimeAgent, 'crash');
    const ds = gw.app.get(DataSource);
    // What a crash right after "decision persisted" leaves: the request decided, the claim IN_PROGRESS.
    await ds.query(
      "UPDATE hitl_request SET status = 'DECIDED', decision = 'APPROVE', client_message_id = ?, decided_by = 'erin (key k)' WHERE id = ?",
      [`admin-decision:${requestId}`, requestId],
    );
    await ds.query(
      "INSERT INTO resume_record (session_id, client_message_id, state, created_at) VALUES (?, ?, 'IN_PROGRESS', ?)",
      [sessionId, `admin-decision:${requestId}`, Date.now() - 60_000],
    );
    expect((await decide(requestId, acmeAdmin, { decision: 'REJECT', reviewer: 'erin' }, 409)).body.error.code).toBe(
      'HITL_ALREADY_DECIDED',
    );
    const finished = await decide(requestId, acmeAdmin, { decision: 'APPROVE', reviewer: 'erin' });
    expect(finished.body.results.map((r: { status: string }) => r.status)).toEqual(['COMPLETED', 'COMPLETED']);
    expect((await decide(requestId, acmeAdmin, { decision: 'APPROVE', reviewer: 'erin' })).body).toEqual(finished.body);
    expect(requestsTo('/shell_run').filter((r) => r.body.includes('./crash'))).toHaveLength(1);
  });

  it("carries out a runtime's saved decision whose resume died (the session still waits): the same decision runs it once, another is refused", async () => {
    const { sessionId, requestId } = await interruptedBatch(runtimeAgent, 'orphan');
    const ds = gw.app.get(DataSource);
    // A runtime's resume saved APPROVE, then its process died: the request DECIDED, the claim IN_PROGRESS and stale.
    await ds.query(
      "UPDATE hitl_request SET status = 'DECIDED', decision = 'APPROVE', client_message_id = 'rt-lost', decided_by = 'runtime (key k)' WHERE id = ?",
      [requestId],
    );
    await ds.query(
      "INSERT INTO resume_record (session_id, client_message_id, state, created_at) VALUES (?, 'rt-lost', 'IN_PROGRESS', ?)",
      [sessionId, Date.now() - 60_000],
    );
    const other = await decide(requestId, acmeAdmin, { decision: 'REJECT', reviewer: 'erin' }, 409);
    expect(other.body.error).toMatchObject({ code: 'HITL_ALREADY_DECIDED', details: { decision: 'APPROVE' } });

    const done = await decide(requestId, acmeAdmin, { decision: 'APPROVE', reviewer: 'erin' });
    expect(done.body.results.map((r: { status: string }) => r.status)).toEqual(['COMPLETED', 'COMPLETED']);
    expect(await session(sessionId)).toMatchObject({ status: 'ACTIVE', hitlPending: false });
    expect((await decide(requestId, acmeAdmin, { decision: 'APPROVE', reviewer: 'erin' })).body).toEqual(done.body);
    expect(requestsTo('/shell_run').filter((r) => r.body.includes('./orphan'))).toHaveLength(1);
    // The decision stays the runtime's, as saved.
    expect((await queueItem(requestId)).decidedBy).toBe('runtime (key k)');
  });

  it("a request decided by the runtime's resume cannot be decided again by an admin", async () => {
    const { sessionId, requestId } = await interruptedBatch(runtimeAgent, 'twice');
    // The admin decision's idempotency key is reserved: a runtime cannot take it.
    const reserved = await gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(runtime)
      .send({ clientMessageId: `admin-decision:${requestId}` })
      .expect(400);
    expect(reserved.body.error.message).toContain('clientMessageId may not start with admin-decision:');
    await gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(runtime)
      .send({ clientMessageId: 'rt-1', decision: 'REJECT' })
      .expect(200);
    const late = await decide(requestId, acmeAdmin, { decision: 'REJECT', reviewer: 'frank' }, 409);
    expect(late.body.error.code).toBe('HITL_ALREADY_DECIDED');
    expect((await queueItem(requestId)).decidedBy).toMatch(/^runtime \(key [0-9a-f-]{36}\)$/);
  });

  it("is in the API docs: the decision endpoint, hitlReviewer, and resume's 403 HITL_ADMIN_REVIEW_REQUIRED", async () => {
    const doc = (await gw.http.get('/docs-json').expect(200)).body;
    const decision = doc.paths['/api/v1/admin/hitl/{id}/decision'].post;
    expect(Object.keys(decision.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', '409']));
    expect(doc.paths['/api/v1/sessions/{id}/resume'].post.responses['403'].description).toContain(
      'HITL_ADMIN_REVIEW_REQUIRED',
    );
    expect(JSON.stringify(doc.components.schemas.CreateAgentDto.properties.hitlReviewer)).toContain('ADMIN');
  });

  it('lists the queue by status: PENDING, DECIDED, or all', async () => {
    const { requestId } = await interruptedBatch(runtimeAgent, 'list');
    const ids = async (query: string) =>
      (await gw.http.get(`/api/v1/admin/hitl${query}`).set(acmeAdmin).expect(200)).body.items.map(
        (i: { id: string }) => i.id,
      );
    expect(await ids('?status=PENDING&pageSize=100')).toContain(requestId);
    expect(await ids('?status=DECIDED&pageSize=100')).not.toContain(requestId);
    await decide(requestId, acmeAdmin, { decision: 'REJECT', reviewer: 'gina' });
    expect(await ids('?status=PENDING&pageSize=100')).not.toContain(requestId);
    expect(await ids('?status=DECIDED&pageSize=100')).toContain(requestId);
    expect(await ids('?pageSize=100')).toContain(requestId);
    expect((await gw.http.get('/api/v1/admin/hitl?status=ALL').set(acmeAdmin).expect(400)).body.error.code).toBe(
      'VALIDATION_FAILED',
    );
  });
});
