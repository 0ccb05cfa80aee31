import { describeEachDialect, createTestDatabaseUrl } from '@test/support/test-database';
import { createKey, startTestGateway, TestGateway, toolBody } from '@test/support/gateway-test-app';
import { McpServiceHealthRegistry } from '@app/modules/tool-registry/mcp-service-health.registry';
import { VisibilitySnapshotService } from '@app/modules/agent-config/visibility/visibility-snapshot.service';

interface Decision {
  toolId: string;
  name: string;
  visible: boolean;
  layer: string;
  reason: string;
}

describeEachDialect('POST /agents/{id}/tool-specs: the visibility pipeline', (dialect) => {
  let gw: TestGateway;
  let db: { url: string; drop(): Promise<void> };
  let runtime: { Authorization: string };
  const tools: Record<string, { id: string; name: string }> = {};
  let agentId: string;

  const create = async (key: string, overrides: Record<string, unknown>) => {
    tools[key] = (
      await gw.http
        .post('/api/v1/admin/tools')
        .set(gw.admin)
        .send(toolBody({ name: key, tenantId: 'acme', ...overrides }))
        .expect(201)
    ).body;
    return tools[key];
  };
  const specs = async (body: Record<string, unknown> = {}, agent = agentId) =>
    (
      await gw.http
        .post(`/api/v1/agents/${agent}/tool-specs`)
        .set(runtime)
        .send({ userId: 'u1', permissions: ['orders:read'], explain: true, ...body })
        .expect(200)
    ).body as {
      tools: Array<Record<string, any>>;
      decisions: Decision[];
    };
  const decisionOf = (decisions: Decision[], name: string) => decisions.find((d) => d.name === name);

  beforeAll(async () => {
    db = await createTestDatabaseUrl(dialect);
    gw = await startTestGateway(db.url, { WEB_SEARCH_URL: 'http://127.0.0.1:9/search' });
    runtime = await createKey(gw, 'acme', 'runtime');
    await create('visible_tool', { permissionTags: ['orders:read'] });
    await create('unbound_tool', {});
    await create('disabled_tool', { enabled: false });
    await create('retired_tool', {});
    await create('needs_perm', { permissionTags: ['orders:read', 'orders:write'] });
    await create('needs_sandbox', { requires: ['SANDBOX'] });
    await create('writes_things', { sideEffect: 'SIDE_EFFECT' });
    await create('mcp_tool', { serviceType: 'MCP_REMOTE', endpoint: 'http://127.0.0.1:9/mcp' });
    tools.foreign = (
      await gw.http
        .post('/api/v1/admin/tools')
        .set(gw.admin)
        .send(toolBody({ name: 'foreign_tool', tenantId: 'globex' }))
        .expect(201)
    ).body;
    tools.platform = (
      await gw.http
        .post('/api/v1/admin/tools')
        .set(gw.admin)
        .send(toolBody({ name: 'platform_tool' }))
        .expect(201)
    ).body;
    const agent = await gw.http
      .post('/api/v1/admin/agents')
      .set(gw.admin)
      .send({ name: 'bot', tenantId: 'acme', webSearchMode: 'AUTO' })
      .expect(201);
    agentId = agent.body.id;
    const bound = [
      'visible_tool',
      'disabled_tool',
      'retired_tool',
      'needs_perm',
      'needs_sandbox',
      'writes_things',
      'mcp_tool',
    ].map((k) => tools[k].id);
    await gw.http.put(`/api/v1/admin/agents/${agentId}/tools`).set(gw.admin).send({ toolIds: bound }).expect(200);
    await gw.http.delete(`/api/v1/admin/tools/${tools.retired_tool.id}`).set(gw.admin).expect(200);
  });
  afterAll(async () => {
    await gw?.close();
    await db?.drop();
  });

  it('emits only tools that pass every layer, and explains each hidden one with its first failing layer', async () => {
    const body = await specs();
    expect(body.tools.map((t) => t.function.name).sort()).toEqual([
      'READ_TOOL_RESULT',
      'mcp_tool',
      'visible_tool',
      'writes_things',
    ]);
    const layers = Object.fromEntries(body.decisions.map((d) => [d.name, d.layer]));
    expect(layers).toMatchObject({
      visible_tool: 'EMITTED',
      unbound_tool: 'BOUND',
      platform_tool: 'BOUND',
      disabled_tool: 'ENABLED',
      retired_tool: 'EXISTS',
      needs_perm: 'PERMITTED',
      needs_sandbox: 'DEPENDENCIES',
      web_search: 'POLICY',
      READ_TOOL_RESULT: 'EMITTED',
      UPDATE_TODO_LIST: 'BOUND',
    });
    expect(decisionOf(body.decisions, 'needs_perm')!.reason).toContain('orders:write');
    for (const d of body.decisions) expect(d.visible).toBe(d.layer === 'EMITTED');
  });

  it("never lists another tenant's tools among the candidates", async () => {
    const body = await specs();
    expect(body.decisions.map((d) => d.toolId)).not.toContain(tools.foreign.id);
    expect(body.decisions.map((d) => d.name)).not.toContain('foreign_tool');
  });

  it('reports a bound tool that vanished from the registry at EXISTS', async () => {
    const ghost = await create('ghost_tool', {});
    await gw.http.post(`/api/v1/admin/agents/${agentId}/tools`).set(gw.admin).send({ toolId: ghost.id }).expect(200);
    const { DataSource } = await import('typeorm');
    await gw.app.get(DataSource).query('DELETE FROM ai_tool WHERE id = ?', [ghost.id]);
    await gw.app.get(DataSource).query('UPDATE config_version SET version = version + 1 WHERE id = 1');
    const d = (await specs()).decisions.find((x) => x.toolId === ghost.id)!;
    expect(d).toMatchObject({ visible: false, layer: 'EXISTS', name: null });
    await gw.http.delete(`/api/v1/admin/agents/${agentId}/tools/${ghost.id}`).set(gw.admin).expect(200);
  });

  it('shows a tool when the session provides what it requires', async () => {
    const body = await specs({ capabilities: ['SANDBOX'] });
    expect(decisionOf(body.decisions, 'needs_sandbox')!.layer).toBe('EMITTED');
  });

  it('hides a tool whose MCP service is known unhealthy (DEPENDENCIES) and shows it again when healthy', async () => {
    const health = gw.app.get(McpServiceHealthRegistry);
    health.report('http://127.0.0.1:9/mcp', false, 'no healthy instance');
    expect(decisionOf((await specs()).decisions, 'mcp_tool')).toMatchObject({
      layer: 'DEPENDENCIES',
      reason: expect.stringContaining('no healthy instance'),
    });
    health.report('http://127.0.0.1:9/mcp', true);
    expect(decisionOf((await specs()).decisions, 'mcp_tool')!.layer).toBe('EMITTED');
  });

  it('adds web_search back only when the mode and the tenant capability allow it', async () => {
    await gw.http.put('/api/v1/admin/tenants/acme/capabilities').set(gw.admin).send({ webSearch: true }).expect(200);
    expect(decisionOf((await specs()).decisions, 'web_search')!.layer).toBe('EMITTED');
    expect((await specs()).tools.map((t) => t.function.name)).toContain('web_search');
    expect(decisionOf((await specs({ webSearchMode: 'DISABLED' })).decisions, 'web_search')!.layer).toBe('POLICY');

    await gw.http
      .patch(`/api/v1/admin/agents/${agentId}`)
      .set(gw.admin)
      .send({ webSearchMode: 'DISABLED' })
      .expect(200);
    const widened = await specs({ webSearchMode: 'ALWAYS' });
    expect(decisionOf(widened.decisions, 'web_search')).toMatchObject({
      layer: 'POLICY',
      reason: expect.stringContaining('DISABLED'),
    });
    await gw.http.patch(`/api/v1/admin/agents/${agentId}`).set(gw.admin).send({ webSearchMode: 'AUTO' }).expect(200);

    await gw.http.put('/api/v1/admin/tenants/acme/capabilities').set(gw.admin).send({ webSearch: false }).expect(200);
    expect(decisionOf((await specs()).decisions, 'web_search')).toMatchObject({
      layer: 'POLICY',
      reason: expect.stringContaining('capability'),
    });
  });

  it('hides every non-READ_ONLY tool under the READ_ONLY side-effect policy', async () => {
    await gw.http
      .patch(`/api/v1/admin/agents/${agentId}`)
      .set(gw.admin)
      .send({ sideEffectPolicy: 'READ_ONLY' })
      .expect(200);
    const body = await specs();
    expect(decisionOf(body.decisions, 'writes_things')!.layer).toBe('POLICY');
    expect(decisionOf(body.decisions, 'visible_tool')!.layer).toBe('EMITTED');
    await gw.http
      .patch(`/api/v1/admin/agents/${agentId}`)
      .set(gw.admin)
      .send({ sideEffectPolicy: 'ALLOW' })
      .expect(200);
  });

  it("emits each model format's own shape", async () => {
    const openai = (await specs({ format: 'openai', explain: false })).tools.find(
      (t) => t.function?.name === 'visible_tool',
    )!;
    expect(openai).toEqual({
      type: 'function',
      function: {
        name: 'visible_tool',
        description: 'A test tool.',
        parameters: expect.objectContaining({ type: 'object' }),
      },
    });
    const anthropic = (await specs({ format: 'anthropic' })).tools.find((t) => t.name === 'visible_tool')!;
    expect(Object.keys(anthropic).sort()).toEqual(['description', 'input_schema', 'name']);
    expect(anthropic.input_schema.properties.q).toEqual({ type: 'string' });
    const gemini = (await specs({ format: 'gemini' })).tools.find((t) => t.name === 'visible_tool')!;
    expect(Object.keys(gemini).sort()).toEqual(['description', 'name', 'parameters']);
  });

  it('returns no decisions without explain', async () => {
    const body = (
      await gw.http
        .post(`/api/v1/agents/${agentId}/tool-specs`)
        .set(runtime)
        .send({ userId: 'u1', permissions: [] })
        .expect(200)
    ).body;
    expect(body.decisions).toBeUndefined();
    expect(body.tools.map((t: any) => t.function.name).sort()).toEqual([
      'READ_TOOL_RESULT',
      'mcp_tool',
      'writes_things',
    ]);
  });

  it('validates the request', async () => {
    const res = await gw.http
      .post(`/api/v1/agents/${agentId}/tool-specs`)
      .set(runtime)
      .send({ permissions: 'all', format: 'llama', capabilities: ['GPU'], webSearchMode: 'MAYBE', tenantId: 'globex' })
      .expect(400);
    expect(res.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual([
      'capabilities',
      'format',
      'permissions',
      'tenantId',
      'userId',
      'webSearchMode',
    ]);
    const agents = (await gw.app.get(VisibilitySnapshotService).tenantView('acme')).agents;
    const cached = agents.size;
    for (const id of ['no-such-agent', 'made-up-1', 'made-up-2'])
      await gw.http
        .post(`/api/v1/agents/${id}/tool-specs`)
        .set(runtime)
        .send({ userId: 'u', permissions: [] })
        .expect(404);
    expect(agents.size).toBe(cached); // misses are not cached: made-up ids cannot grow the view
  });

  it('reloads only the tenant a write touched; a platform-wide write reloads every tenant', async () => {
    const snapshots = gw.app.get(VisibilitySnapshotService);
    const acmeBefore = await snapshots.tenantView('acme');
    const globexBefore = await snapshots.tenantView('globex');
    await gw.http
      .patch(`/api/v1/admin/tools/${tools.disabled_tool.id}`)
      .set(gw.admin)
      .send({ description: 'touched' })
      .expect(200);
    expect(await snapshots.tenantView('acme')).not.toBe(acmeBefore);
    expect(await snapshots.tenantView('globex')).toBe(globexBefore);
    await gw.http
      .patch(`/api/v1/admin/tools/${tools.platform.id}`)
      .set(gw.admin)
      .send({ description: 'touched too' })
      .expect(200);
    expect(await snapshots.tenantView('globex')).not.toBe(globexBefore);
  });

  it("sees another instance's admin write on the next request (version stamp in the database)", async () => {
    const other = await startTestGateway(db.url);
    try {
      const before = (
        await other.http
          .post(`/api/v1/agents/${agentId}/tool-specs`)
          .set(runtime)
          .send({ userId: 'u1', permissions: ['orders:read'] })
          .expect(200)
      ).body;
      expect(before.tools.map((t: any) => t.function.name)).toContain('visible_tool');
      await gw.http
        .patch(`/api/v1/admin/tools/${tools.visible_tool.id}`)
        .set(gw.admin)
        .send({ enabled: false })
        .expect(200);
      const after = (
        await other.http
          .post(`/api/v1/agents/${agentId}/tool-specs`)
          .set(runtime)
          .send({ userId: 'u1', permissions: ['orders:read'] })
          .expect(200)
      ).body;
      expect(after.tools.map((t: any) => t.function.name)).not.toContain('visible_tool');
    } finally {
      await gw.http
        .patch(`/api/v1/admin/tools/${tools.visible_tool.id}`)
        .set(gw.admin)
        .send({ enabled: true })
        .expect(200);
      await other.close();
    }
  });
});
