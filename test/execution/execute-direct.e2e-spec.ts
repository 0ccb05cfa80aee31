import { createTestDatabaseUrl, TestDatabase } from '@test/support/test-database';
import { createKey, startTestGateway, TestGateway, toolBody } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';

describe('POST /tools/{name}/execute (executeDirect)', () => {
  let db: TestDatabase;
  let gw: TestGateway;
  let remote: RecordingHttpServer;
  let runtime: { Authorization: string };
  let agentId: string;
  const tools: Record<string, { id: string }> = {};
  const execute = (name: string, body: Record<string, unknown>, expected = 200) =>
    gw.http
      .post(`/api/v1/tools/${name}/execute`)
      .set(runtime)
      .send({ agentId, userId: 'u1', permissions: ['ops'], ...body })
      .expect(expected);

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    db = await createTestDatabaseUrl('sqlite');
    gw = await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', TOOL_RETRY_BASE_DELAY_MS: '1' });
    runtime = await createKey(gw, 'acme', 'runtime');
    const create = async (name: string, overrides: Record<string, unknown> = {}) => {
      tools[name] = (
        await gw.http
          .post('/api/v1/admin/tools')
          .set(gw.admin)
          .send(toolBody({ name, tenantId: 'acme', endpoint: remote.url(`/${name}`), ...overrides }))
          .expect(201)
      ).body;
    };
    await create('lookup', { permissionTags: ['ops'] });
    await create('run_shell', {
      sideEffect: 'SIDE_EFFECT',
      parameters: { type: 'object', properties: { command: { type: 'string' } } },
    });
    await create('nuke', { sideEffect: 'HIGH_RISK' });
    await create('unbound');
    await create('flaky', { endpoint: remote.url('/flaky') });
    agentId = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'a', tenantId: 'acme' }).expect(201)
    ).body.id;
    await gw.http
      .put(`/api/v1/admin/agents/${agentId}/tools`)
      .set(gw.admin)
      .send({ toolIds: [tools.lookup.id, tools.run_shell.id, tools.nuke.id, tools.flaky.id] })
      .expect(200);
  });
  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
    await db?.drop();
  });

  it('runs a tool and returns the result with its structured block', async () => {
    const res = await execute('lookup', { arguments: { q: 'order-1' }, toolCallId: 'idem-1' });
    expect(res.body).toMatchObject({
      status: 'COMPLETED',
      isError: false,
      attempts: 1,
      toolCallId: 'idem-1',
      errorClass: null,
    });
    expect(JSON.parse(res.body.content)).toEqual({ ok: true });
    const seen = remote.requests.filter((r) => r.url === '/lookup');
    expect(seen).toHaveLength(1);
    expect(seen[0].headers).toMatchObject({ 'x-tool-call-id': 'idem-1', 'x-tenant-id': 'acme', 'x-user-id': 'u1' });
    expect(seen[0].headers['idempotency-key']).toMatch(/^gw1-/);
    expect(seen[0].headers['x-session-id']).toBeUndefined();
    expect(JSON.parse(seen[0].body)).toEqual({ q: 'order-1' });
  });

  it('fails schema violations with a 200 result and no call', async () => {
    const before = remote.requests.length;
    const res = await execute('lookup', { arguments: '{"q": 7}' });
    expect(res.body).toMatchObject({ status: 'FAILED', isError: true, attempts: 0, errorClass: 'BAD_ARGUMENTS' });
    expect(res.body.content).toMatch(/^执行失败: .*q: must be string/);
    expect(remote.requests.length).toBe(before);
  });

  it('refuses a tool the user may not see, or an agent is not bound to, as a failed result', async () => {
    const noPerm = await gw.http
      .post('/api/v1/tools/lookup/execute')
      .set(runtime)
      .send({ agentId, userId: 'u1', permissions: [], arguments: { q: 'x' } })
      .expect(200);
    expect(noPerm.body).toMatchObject({ status: 'FAILED', errorClass: 'NOT_VISIBLE' });
    expect(noPerm.body.content).toContain('PERMITTED');
    const unbound = await execute('unbound', { agentId, arguments: { q: 'x' } });
    expect(unbound.body.content).toContain('BOUND');
    await gw.http.patch(`/api/v1/admin/tools/${tools.lookup.id}`).set(gw.admin).send({ enabled: false }).expect(200);
    const disabled = await execute('lookup', { agentId, arguments: { q: 'x' } });
    expect(disabled.body.content).toContain('ENABLED');
    await gw.http.patch(`/api/v1/admin/tools/${tools.lookup.id}`).set(gw.admin).send({ enabled: true }).expect(200);
  });

  it('answers 409 HITL_REQUIRED for a HIGH_RISK tool or risky arguments, running nothing', async () => {
    const before = remote.requests.length;
    const highRisk = await execute('nuke', { arguments: { q: 'x' } }, 409);
    expect(highRisk.body.error.code).toBe('HITL_REQUIRED');
    const risky = await execute('run_shell', { arguments: { command: 'git push --force origin main' } }, 409);
    expect(risky.body.error).toMatchObject({
      code: 'HITL_REQUIRED',
      details: { rules: [expect.objectContaining({ rule: 'force-push' })] },
    });
    const safe = await execute('run_shell', { arguments: { command: 'git status' } });
    expect(safe.body.status).toBe('COMPLETED');
    expect(remote.requests.length).toBe(before + 1);
  });

  it('answers 409 WEB_SEARCH_REQUIRES_SESSION for platform web search', async () => {
    const res = await execute('web_search', { arguments: { query: 'x' } }, 409);
    expect(res.body.error.code).toBe('WEB_SEARCH_REQUIRES_SESSION');
  });

  it('refuses a session-only built-in as a failed result that says where to call it', async () => {
    const agent = await agentWithBuiltins('builtins', ['WRITE_FILE', 'READ_TOOL_RESULT', 'CHECK_TASK_STATUS']);
    const res = await execute('WRITE_FILE', {
      agentId: agent,
      capabilities: ['FILE_ROOM'],
      arguments: { path: 'a.txt', content: 'x' },
    });
    expect(res.body).toMatchObject({ status: 'FAILED', isError: true });
    expect(res.body.content).toContain(
      'WRITE_FILE works only inside a session with a workspace; call it with POST /api/v1/sessions/{id}/act in a session created with capabilities ["FILE_ROOM"]',
    );
    // The session's own built-ins (results, sub-agent tasks) are refused the same way, naming the tool.
    for (const [name, args] of [
      ['READ_TOOL_RESULT', { toolCallId: 'x' }],
      ['CHECK_TASK_STATUS', { taskId: 'x' }],
    ] as const) {
      const other = await execute(name, { agentId: agent, arguments: args });
      expect(other.body).toMatchObject({ status: 'FAILED', errorClass: 'BUILTIN_REFUSED' });
      expect(other.body.content).toContain(
        `${name} works only inside a session; call it with POST /api/v1/sessions/{id}/act`,
      );
    }
  });

  // RUN_COMMAND requires SANDBOX: a FILE_ROOM session, as the file tools' refusal says to create, does not offer it.
  it('refuses RUN_COMMAND outside a session naming the capability it requires, SANDBOX', async () => {
    const agent = await agentWithBuiltins('commands', ['RUN_COMMAND']);
    const res = await execute('RUN_COMMAND', {
      agentId: agent,
      capabilities: ['SANDBOX'],
      arguments: { command: 'ls' },
    });
    expect(res.body).toMatchObject({ status: 'FAILED', isError: true, errorClass: 'BUILTIN_REFUSED' });
    expect(res.body.content).toContain(
      'RUN_COMMAND works only inside a session with a workspace; call it with POST /api/v1/sessions/{id}/act in a session created with capabilities ["SANDBOX"]',
    );
  });

  /** An agent of acme named `name`, bound to the platform built-ins `names`; its id. */
  async function agentWithBuiltins(name: string, names: string[]): Promise<string> {
    const all = (await gw.http.get('/api/v1/admin/tools?pageSize=500').set(gw.admin).expect(200)).body.items as Array<{
      id: string;
      name: string;
    }>;
    const agent = (
      await gw.http
        .post('/api/v1/admin/agents')
        .set(gw.admin)
        .send({ name, tenantId: 'acme', sideEffectPolicy: 'ALLOW' })
        .expect(201)
    ).body.id as string;
    await gw.http
      .put(`/api/v1/admin/agents/${agent}/tools`)
      .set(gw.admin)
      .send({ toolIds: names.map((n) => all.find((t) => t.name === n)!.id) })
      .expect(200);
    return agent;
  }

  it('answers 404 for a tool name the tenant does not have', async () => {
    await execute('nope', { arguments: {} }, 404);
    const globex = await createKey(gw, 'globex', 'runtime');
    await gw.http
      .post('/api/v1/tools/lookup/execute')
      .set(globex)
      .send({ agentId, userId: 'u', permissions: ['ops'], arguments: { q: 'x' } })
      .expect(404);
  });

  it('retries a transient failure of a READ_ONLY tool and reports 执行失败 after the last attempt', async () => {
    remote.handler = (req, res) => {
      res.statusCode = req.url === '/flaky' ? 503 : 200;
      res.end('{"ok":false}');
    };
    try {
      const res = await execute('flaky', { arguments: { q: 'x' } });
      expect(res.body).toMatchObject({ status: 'FAILED', isError: true, attempts: 3, errorClass: 'HTTP_RETRYABLE' });
      expect(res.body.content).toMatch(/^执行失败: .*3 attempts/);
      expect(remote.requests.filter((r) => r.url === '/flaky')).toHaveLength(3);
    } finally {
      remote.handler = (_req, res) => void res.end('{"ok":true}');
    }
  });

  it('writes a tool log row for each call, with the entry DIRECT', async () => {
    const rows = (await gw.http.get('/api/v1/admin/tool-calls?toolName=lookup').set(gw.admin).expect(200)).body.items;
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(
      rows.every((r: { entry: string; sessionId: string | null }) => r.entry === 'DIRECT' && r.sessionId === null),
    ).toBe(true);
  });
});
