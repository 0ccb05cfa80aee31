import { DataSource } from 'typeorm';
import { createTestDatabaseUrl, TestDatabase } from '@test/support/test-database';
import { createKey, startTestGateway, TestGateway, toolBody } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';

/**
 * What an HTTP tool's remote receives through the whole gateway (act, resume, registration): the call's context headers, an idempotency key per (tenant, session,
 * toolCallId) that a re-run keeps, and nothing at all for a path value that would leave its segment.
 */
describe('what remotes receive', () => {
  let db: TestDatabase;
  let gw: TestGateway;
  let remote: RecordingHttpServer;
  const runtime: Record<string, { Authorization: string }> = {};
  const agents: Record<string, string> = {};
  const requestsTo = (path: string) => remote.requests.filter((r) => r.url.startsWith(path));

  const newSession = async (tenant: string, userId = 'u1') =>
    (
      await gw.http
        .post('/api/v1/sessions')
        .set(runtime[tenant])
        .send({ agentId: agents[tenant], userId, permissions: [] })
        .expect(201)
    ).body.id as string;
  const act = (
    tenant: string,
    sessionId: string,
    iteration: number,
    toolCalls: Array<{ id: string; name: string; arguments: unknown }>,
  ) =>
    gw.http.post(`/api/v1/sessions/${sessionId}/act`).set(runtime[tenant]).send({ iteration, toolCalls }).expect(200);
  /** The journal row as a process that died after sending would have left it: STARTED, lease long expired. */
  const leaveStarted = (tenant: string, sessionId: string, toolCallId: string) =>
    gw.app.get(DataSource).query(
      `UPDATE tool_call_journal SET state = 'STARTED', result_status = NULL, owner = 'dead-instance', lease_expires_at = ?, finished_at = NULL, content = NULL, total_chars = 0, result_chunks = 0
       WHERE tenant_id = ? AND session_id = ? AND tool_call_id = ?`,
      [Date.now() - 60_000, tenant, sessionId, toolCallId],
    );

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    db = await createTestDatabaseUrl('sqlite');
    gw = await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
    const create = async (body: Record<string, unknown>) =>
      (await gw.http.post('/api/v1/admin/tools').set(gw.admin).send(toolBody(body)).expect(201)).body.id as string;
    const anyArgs = { type: 'object', properties: { q: { type: 'string' }, id: { type: 'string' } } };
    const whoami = await create({
      name: 'whoami',
      tenantId: null,
      endpoint: remote.url('/whoami'),
      parameters: anyArgs,
    });
    const write = await create({
      name: 'write_note',
      tenantId: null,
      sideEffect: 'SIDE_EFFECT',
      endpoint: remote.url('/write_note'),
      parameters: anyArgs,
    });
    const profile = await create({
      name: 'user_profile',
      tenantId: 'acme',
      httpMethod: 'GET',
      endpoint: remote.url('/api/tenants/acme/users/{id}/profile'),
      parameters: anyArgs,
    });
    for (const tenant of ['acme', 'globex']) {
      runtime[tenant] = await createKey(gw, tenant, 'runtime');
      agents[tenant] = (
        await gw.http
          .post('/api/v1/admin/agents')
          .set(gw.admin)
          .send({ name: `${tenant}-bot`, tenantId: tenant })
          .expect(201)
      ).body.id;
      const toolIds = tenant === 'acme' ? [whoami, write, profile] : [whoami, write];
      await gw.http.put(`/api/v1/admin/agents/${agents[tenant]}/tools`).set(gw.admin).send({ toolIds }).expect(200);
    }
  });
  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
    await db?.drop();
  });
  beforeEach(() => (remote.requests.length = 0));

  it('refuses a tool whose headers name a context header, on create and on PATCH', async () => {
    const acmeAdmin = await createKey(gw, 'acme', 'admin');
    const created = await gw.http
      .post('/api/v1/admin/tools')
      .set(acmeAdmin)
      .send(toolBody({ tenantId: 'acme', headers: { 'X-Tenant-Id': 'globex' } }))
      .expect(400);
    expect(created.body.error.code).toBe('VALIDATION_FAILED');
    expect(created.body.error.details.fields).toEqual([expect.objectContaining({ field: 'headers.X-Tenant-Id' })]);
    expect(created.body.error.message).toContain('set by the gateway');
    const tool = (
      await gw.http
        .post('/api/v1/admin/tools')
        .set(acmeAdmin)
        .send(toolBody({ tenantId: 'acme', headers: { 'X-Team': 'a' } }))
        .expect(201)
    ).body;
    const patched = await gw.http
      .patch(`/api/v1/admin/tools/${tool.id}`)
      .set(acmeAdmin)
      .send({ headers: { 'idempotency-key': 'fixed' } })
      .expect(400);
    expect(patched.body.error.details.fields).toEqual([expect.objectContaining({ field: 'headers.idempotency-key' })]);
  });

  it('sends tenant, user, session and toolCallId; call_1 in two sessions and two tenants gets three different keys', async () => {
    const calls = [
      { tenant: 'acme', sessionId: await newSession('acme', 'u1') },
      { tenant: 'acme', sessionId: await newSession('acme', '张三') },
      { tenant: 'globex', sessionId: await newSession('globex', 'u9') },
    ];
    for (const c of calls) {
      const res = await act(c.tenant, c.sessionId, 1, [{ id: 'call_1', name: 'whoami', arguments: { q: 'x' } }]);
      expect(res.body.results[0]).toMatchObject({ status: 'COMPLETED' });
    }
    const seen = requestsTo('/whoami');
    expect(seen).toHaveLength(3);
    expect(
      seen.map((r) => [
        r.headers['x-tenant-id'],
        r.headers['x-user-id'],
        r.headers['x-session-id'],
        r.headers['x-tool-call-id'],
      ]),
    ).toEqual([
      ['acme', 'u1', calls[0].sessionId, 'call_1'],
      ['acme', '%E5%BC%A0%E4%B8%89', calls[1].sessionId, 'call_1'],
      ['globex', 'u9', calls[2].sessionId, 'call_1'],
    ]);
    const keys = seen.map((r) => r.headers['idempotency-key']);
    expect(new Set(keys).size).toBe(3);
    expect(keys).not.toContain('call_1');
  });

  it('sends the same key when a journaled call runs again (READ_ONLY rerun, UNKNOWN_OUTCOME RETRY)', async () => {
    const sessionId = await newSession('acme');
    await act('acme', sessionId, 1, [{ id: 'ro-1', name: 'whoami', arguments: { q: 'again' } }]);
    await leaveStarted('acme', sessionId, 'ro-1');
    const rerun = await act('acme', sessionId, 1, [{ id: 'ro-1', name: 'whoami', arguments: { q: 'again' } }]);
    expect(rerun.body.results[0]).toMatchObject({ status: 'COMPLETED', reused: false });

    await act('acme', sessionId, 2, [{ id: 'se-1', name: 'write_note', arguments: { q: 'once' } }]);
    await leaveStarted('acme', sessionId, 'se-1');
    const unknown = await act('acme', sessionId, 2, [{ id: 'se-1', name: 'write_note', arguments: { q: 'once' } }]);
    expect(unknown.body.hitlRequest).toMatchObject({ requestType: 'UNKNOWN_OUTCOME', toolCallId: 'se-1' });
    await gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(runtime.acme)
      .send({ clientMessageId: 'm-1', decision: 'RETRY' })
      .expect(200);

    const [ro1, ro2] = requestsTo('/whoami');
    const [se1, se2] = requestsTo('/write_note');
    expect(ro2.headers['idempotency-key']).toBe(ro1.headers['idempotency-key']);
    expect(se2.headers['idempotency-key']).toBe(se1.headers['idempotency-key']);
    expect(se1.headers['idempotency-key']).not.toBe(ro1.headers['idempotency-key']);
  });

  it('fails a call whose path value is ".." (any encoding) naming the argument, and sends nothing', async () => {
    const sessionId = await newSession('acme');
    const res = await act('acme', sessionId, 1, [
      { id: 'p-1', name: 'user_profile', arguments: { id: '..' } },
      { id: 'p-2', name: 'user_profile', arguments: { id: '%2e%2E' } },
      { id: 'p-3', name: 'user_profile', arguments: { id: '..\\..\\admin' } },
      { id: 'p-4', name: 'user_profile', arguments: { id: 'bob' } },
    ]);
    for (const result of res.body.results.slice(0, 3)) {
      expect(result).toMatchObject({ status: 'FAILED', isError: true, errorClass: 'INVALID_REQUEST' });
      expect(result.content).toMatch(/^执行失败: .*argument "id"/);
    }
    expect(res.body.results[3]).toMatchObject({ status: 'COMPLETED' });
    expect(remote.requests.map((r) => r.url)).toEqual(['/api/tenants/acme/users/bob/profile']);
  });
});
