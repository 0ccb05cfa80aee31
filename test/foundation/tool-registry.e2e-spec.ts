import { BuiltinToolCatalog } from '@app/modules/tool-registry/builtin-tool.catalog';
import { describeEachDialect } from '@test/support/test-database';
import { createKey, gatewayForSuite, toolBody } from '@test/support/gateway-test-app';
import { ToolRegistryService } from '@app/modules/tool-registry/tool-registry.service';

describeEachDialect('tool registry admin API', (dialect) => {
  const suite = gatewayForSuite(dialect);
  const countTools = async () =>
    (await suite.gw.http.get('/api/v1/admin/tools').set(suite.gw.admin)).body.total as number;

  it('has every platform built-in of the catalog from the first start', async () => {
    const res = await suite.gw.http
      .get('/api/v1/admin/tools?source=BUILTIN&pageSize=200')
      .set(suite.gw.admin)
      .expect(200);
    const catalog = suite.gw.app.get(BuiltinToolCatalog).definitions();
    expect(res.body.items.map((t: { name: string }) => t.name).sort()).toEqual(catalog.map((d) => d.name).sort());
    expect(catalog.map((d) => d.name)).toEqual(
      expect.arrayContaining([
        'READ_TOOL_RESULT',
        'UPDATE_TODO_LIST',
        'web_search',
        'SKILL_CALL',
        'SUB_AGENT_CALL',
        'RAG_SEARCH',
        'RUN_COMMAND',
        'READ_FILE',
      ]),
    );
    for (const t of res.body.items) expect(t).toMatchObject({ tenantId: null, source: 'BUILTIN', status: 'ACTIVE' });
    expect(res.body.items.find((t: { name: string }) => t.name === 'web_search')).toMatchObject({
      tenantId: null,
      source: 'BUILTIN',
      status: 'ACTIVE',
      sideEffect: 'READ_ONLY',
    });
  });

  it('creates a tool with the full descriptor', async () => {
    const body = toolBody({
      name: 'order_lookup',
      tenantId: 'acme',
      httpMethod: 'GET',
      timeoutMs: 1500,
      permissionTags: ['orders:read'],
      remoteName: 'lookup',
      requires: ['SANDBOX'],
      hitl: { approvalText: 'Look up?', rejectPolicy: 'ABORT_SESSION' },
      result: { maxInlineChars: 1000, redactFields: ['token'] },
      headers: { 'X-Api-Key': '${secret:ORDERS_KEY}', Accept: 'application/json' },
    });
    const res = await suite.gw.http.post('/api/v1/admin/tools').set(suite.gw.admin).send(body).expect(201);
    expect(res.body).toMatchObject({ ...body, version: 1, status: 'ACTIVE', source: 'DB', enabled: true });
    expect(res.body.id).toEqual(expect.any(String));
    expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);
    const got = await suite.gw.http.get(`/api/v1/admin/tools/${res.body.id}`).set(suite.gw.admin).expect(200);
    const { checklist, ...created } = res.body;
    expect(checklist.ok).toBe(true);
    expect(got.body).toEqual(created);
  });

  it('refuses a duplicate name in the same scope with 409 TOOL_NAME_TAKEN', async () => {
    await suite.gw.http
      .post('/api/v1/admin/tools')
      .set(suite.gw.admin)
      .send(toolBody({ name: 'dup', tenantId: 'acme' }))
      .expect(201);
    const res = await suite.gw.http
      .post('/api/v1/admin/tools')
      .set(suite.gw.admin)
      .send(toolBody({ name: 'dup', tenantId: 'acme' }))
      .expect(409);
    expect(res.body.error.code).toBe('TOOL_NAME_TAKEN');
    await suite.gw.http
      .post('/api/v1/admin/tools')
      .set(suite.gw.admin)
      .send(toolBody({ name: 'dup', tenantId: 'globex' }))
      .expect(201);
  });

  it('refuses a tenant tool that would shadow a platform-wide one, but no tenant keeps a name from the platform', async () => {
    const { http, admin } = suite.gw;
    await http
      .post('/api/v1/admin/tools')
      .set(admin)
      .send(toolBody({ name: 'shared_name' }))
      .expect(201);
    const shadow = await http
      .post('/api/v1/admin/tools')
      .set(admin)
      .send(toolBody({ name: 'shared_name', tenantId: 'acme' }))
      .expect(409);
    expect(shadow.body.error.code).toBe('TOOL_NAME_TAKEN');

    // A tenant's name taken first does not keep the platform from it (created, or renamed onto it in another case).
    const own = (
      await http
        .post('/api/v1/admin/tools')
        .set(admin)
        .send(toolBody({ name: 'acme_only', tenantId: 'acme' }))
        .expect(201)
    ).body;
    const platform = (
      await http
        .post('/api/v1/admin/tools')
        .set(admin)
        .send(toolBody({ name: 'acme_only' }))
        .expect(201)
    ).body;
    expect(platform).toMatchObject({ name: 'acme_only', tenantId: null });
    const other = (
      await http
        .post('/api/v1/admin/tools')
        .set(admin)
        .send(toolBody({ name: 'other_name' }))
        .expect(201)
    ).body;
    await http.patch(`/api/v1/admin/tools/${other.id}`).set(admin).send({ name: 'ACME_ONLY' }).expect(409);
    await http
      .post('/api/v1/admin/tools')
      .set(admin)
      .send(toolBody({ name: 'globex_only', tenantId: 'globex' }))
      .expect(201);
    await http.patch(`/api/v1/admin/tools/${other.id}`).set(admin).send({ name: 'Globex_Only' }).expect(200);

    // Calls by the name reach acme's own tool: the platform's is explained as shadowed, never emitted beside it.
    const runtime = await createKey(suite.gw, 'acme', 'runtime');
    const agentId = (
      await http.post('/api/v1/admin/agents').set(admin).send({ name: 'shadow-bot', tenantId: 'acme' }).expect(201)
    ).body.id;
    await http
      .put(`/api/v1/admin/agents/${agentId}/tools`)
      .set(admin)
      .send({ toolIds: [own.id, platform.id] })
      .expect(200);
    const specs = (
      await http
        .post(`/api/v1/agents/${agentId}/tool-specs`)
        .set(runtime)
        .send({ userId: 'u1', permissions: [], explain: true })
        .expect(200)
    ).body;
    const decisions = Object.fromEntries(specs.decisions.map((d: { toolId: string }) => [d.toolId, d]));
    expect(decisions[own.id]).toMatchObject({ visible: true, layer: 'EMITTED' });
    expect(decisions[platform.id]).toMatchObject({ visible: false, layer: 'PERMITTED' });
  });

  it.each([
    ['not an object', { type: 'string' }],
    ['a wrong keyword value', { type: 'object', properties: { a: { type: 'nonsense' } } }],
    ['an unresolvable $ref', { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } }],
  ])('answers 400 for parameters that are %s, naming the field, writing nothing', async (_label, parameters) => {
    const before = await countTools();
    const res = await suite.gw.http
      .post('/api/v1/admin/tools')
      .set(suite.gw.admin)
      .send(toolBody({ parameters }))
      .expect(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.fields.map((f: { field: string }) => f.field)).toContain('parameters');
    expect(await countTools()).toBe(before);
  });

  it('validates names, enums, types and unknown fields', async () => {
    const res = await suite.gw.http
      .post('/api/v1/admin/tools')
      .set(suite.gw.admin)
      .send(
        toolBody({
          name: 'has space',
          serviceType: 'SOAP',
          sideEffect: 'MAYBE',
          timeoutMs: 'soon',
          permissionTags: 'x',
          bogus: 1,
        }),
      )
      .expect(400);
    const fields = res.body.error.details.fields.map((f: { field: string }) => f.field).sort();
    expect(fields).toEqual(['bogus', 'name', 'permissionTags', 'serviceType', 'sideEffect', 'timeoutMs']);
  });

  it.each([
    ['HTTP', 'not a url'],
    ['HTTP', 'https://{host}/orders/{id}'],
    ['MCP_REMOTE', 'ftp://x/mcp'],
    ['MCP_NACOS', 'no-group'],
    ['LOCAL', 'just-a-name'],
  ])('checks the endpoint shape of %s tools', async (serviceType, endpoint) => {
    const res = await suite.gw.http
      .post('/api/v1/admin/tools')
      .set(suite.gw.admin)
      .send(toolBody({ serviceType, endpoint }))
      .expect(400);
    expect(res.body.error.details.fields[0].field).toBe('endpoint');
    expect(res.body.error.message).toContain(serviceType);
  });

  it('refuses a literal credential in headers and tells how to reference a secret', async () => {
    const res = await suite.gw.http
      .post('/api/v1/admin/tools')
      .set(suite.gw.admin)
      .send(toolBody({ headers: { Authorization: 'Bearer sk-live-123' } }))
      .expect(400);
    expect(res.body.error.details.fields[0].field).toBe('headers.Authorization');
    expect(res.body.error.message).toContain('${secret:NAME}');
    expect(JSON.stringify(res.body)).not.toContain('sk-live-123');
  });

  it('refuses a header value no HTTP request can carry (beyond U+00FF), for tools and MCP services alike', async () => {
    const before = await countTools();
    const tool = await suite.gw.http
      .post('/api/v1/admin/tools')
      .set(suite.gw.admin)
      .send(toolBody({ headers: { 'X-Locale': '中文' } }))
      .expect(400);
    expect(tool.body.error.details.fields).toEqual([
      {
        field: 'headers.X-Locale',
        problems: [
          'must be a header name (letters, digits, -) with a string value of at most 8192 characters, no line breaks or control characters and none beyond U+00FF',
        ],
      },
    ]);
    expect(await countTools()).toBe(before);
    const service = await suite.gw.http
      .post('/api/v1/admin/mcp-services')
      .set(suite.gw.admin)
      .send({ name: 'wide-header', kind: 'STATIC', url: 'http://127.0.0.1:9/mcp', headers: { 'X-Locale': '中文' } })
      .expect(400);
    expect(service.body.error.details.fields[0].field).toBe('headers.X-Locale');
    await suite.gw.http
      .post('/api/v1/admin/tools')
      .set(suite.gw.admin)
      .send(toolBody({ headers: { 'X-Locale': 'français' } }))
      .expect(201);
  });

  it('bumps version on PATCH and retires on DELETE, keeping the row', async () => {
    const created = await suite.gw.http.post('/api/v1/admin/tools').set(suite.gw.admin).send(toolBody()).expect(201);
    const patched = await suite.gw.http
      .patch(`/api/v1/admin/tools/${created.body.id}`)
      .set(suite.gw.admin)
      .send({ description: 'new', enabled: false })
      .expect(200);
    expect(patched.body).toMatchObject({ version: 2, description: 'new', enabled: false });
    const retired = await suite.gw.http
      .delete(`/api/v1/admin/tools/${created.body.id}`)
      .set(suite.gw.admin)
      .expect(200);
    expect(retired.body).toMatchObject({ status: 'RETIRED', version: 3 });
    // Retiring it again changes nothing: same answer, same version (runtimes watch versions for changes).
    const again = await suite.gw.http.delete(`/api/v1/admin/tools/${created.body.id}`).set(suite.gw.admin).expect(200);
    expect(again.body).toEqual(retired.body);
    const got = await suite.gw.http.get(`/api/v1/admin/tools/${created.body.id}`).set(suite.gw.admin).expect(200);
    expect(got.body.status).toBe('RETIRED');
    const clash = await suite.gw.http
      .post('/api/v1/admin/tools')
      .set(suite.gw.admin)
      .send(toolBody({ name: created.body.name }))
      .expect(409);
    expect(clash.body.error.message).toMatch(/retired/);
    const revived = await suite.gw.http
      .patch(`/api/v1/admin/tools/${created.body.id}`)
      .set(suite.gw.admin)
      .send({ status: 'ACTIVE' })
      .expect(200);
    expect(revived.body).toMatchObject({ status: 'ACTIVE', version: 4 });
  });

  it('validates PATCH bodies against the merged definition', async () => {
    const created = await suite.gw.http.post('/api/v1/admin/tools').set(suite.gw.admin).send(toolBody()).expect(201);
    await suite.gw.http
      .patch(`/api/v1/admin/tools/${created.body.id}`)
      .set(suite.gw.admin)
      .send({ parameters: { type: 'array' } })
      .expect(400);
    await suite.gw.http
      .patch(`/api/v1/admin/tools/${created.body.id}`)
      .set(suite.gw.admin)
      .send({ serviceType: 'MCP_NACOS' })
      .expect(400);
    await suite.gw.http
      .patch(`/api/v1/admin/tools/${created.body.id}`)
      .set(suite.gw.admin)
      .send({ tenantId: 'acme' })
      .expect(400);
    const after = await suite.gw.http.get(`/api/v1/admin/tools/${created.body.id}`).set(suite.gw.admin).expect(200);
    expect(after.body.version).toBe(1);
  });

  it('reads the same descriptor through the raw snapshot query as through the entity', async () => {
    const created = await suite.gw.http
      .post('/api/v1/admin/tools')
      .set(suite.gw.admin)
      .send(
        toolBody({
          tenantId: 'rawcheck',
          timeoutMs: 900,
          requires: ['FILE_ROOM'],
          hitl: { approvalText: 'ok?' },
          result: { maxInlineChars: 500 },
          headers: { Accept: 'x' },
        }),
      )
      .expect(201);
    const registry = suite.gw.app.get(ToolRegistryService);
    const viaEntity = await registry.findById(created.body.id);
    const viaRaw = (await registry.findAllInScope('rawcheck')).find((t) => t.id === created.body.id);
    expect(viaRaw).toEqual(viaEntity);
  });

  it('answers 404 for unknown ids', async () => {
    await suite.gw.http.get('/api/v1/admin/tools/nope').set(suite.gw.admin).expect(404);
    await suite.gw.http.patch('/api/v1/admin/tools/nope').set(suite.gw.admin).send({ description: 'x' }).expect(404);
    await suite.gw.http.delete('/api/v1/admin/tools/nope').set(suite.gw.admin).expect(404);
  });

  it('lists with filters and paging', async () => {
    for (const i of [1, 2, 3]) {
      await suite.gw.http
        .post('/api/v1/admin/tools')
        .set(suite.gw.admin)
        .send(
          toolBody({
            name: `paged_${i}`,
            tenantId: 'paging',
            description: `findme ${i}`,
            serviceType: 'MCP_REMOTE',
            endpoint: 'http://127.0.0.1:9/mcp',
          }),
        )
        .expect(201);
    }
    const page1 = await suite.gw.http
      .get('/api/v1/admin/tools?tenantId=paging&serviceType=MCP_REMOTE&q=findme&page=1&pageSize=2')
      .set(suite.gw.admin)
      .expect(200);
    expect(page1.body).toMatchObject({ total: 3, page: 1, pageSize: 2 });
    expect(page1.body.items.map((t: { name: string }) => t.name)).toEqual(['paged_1', 'paged_2']);
    const page2 = await suite.gw.http
      .get('/api/v1/admin/tools?tenantId=paging&serviceType=MCP_REMOTE&q=findme&page=2&pageSize=2')
      .set(suite.gw.admin)
      .expect(200);
    expect(page2.body.items.map((t: { name: string }) => t.name)).toEqual(['paged_3']);
    const literal = await suite.gw.http.get('/api/v1/admin/tools?q=%25').set(suite.gw.admin).expect(200);
    expect(literal.body.total).toBe(0);
    const bad = await suite.gw.http
      .get('/api/v1/admin/tools?pageSize=0&enabled=maybe&source=X')
      .set(suite.gw.admin)
      .expect(400);
    expect(bad.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual([
      'enabled',
      'pageSize',
      'source',
    ]);
    const badTenant = await suite.gw.http.get('/api/v1/admin/tools?tenantId=a%20b').set(suite.gw.admin).expect(400);
    expect(badTenant.body.error.details.fields).toEqual([
      { field: 'tenantId', problems: ['tenantId must be 1-64 letters, digits, _ . or -'] },
    ]);
  });

  it('scopes a tenant admin: own and platform-wide tools only, no platform-wide writes', async () => {
    const acmeAdmin = await createKey(suite.gw, 'scoped', 'admin');
    const own = await suite.gw.http
      .post('/api/v1/admin/tools')
      .set(acmeAdmin)
      .send(toolBody({ name: 'scoped_tool' }))
      .expect(201);
    expect(own.body.tenantId).toBe('scoped');
    await suite.gw.http
      .post('/api/v1/admin/tools')
      .set(acmeAdmin)
      .send(toolBody({ tenantId: null }))
      .expect(403);
    const foreign = await suite.gw.http
      .post('/api/v1/admin/tools')
      .set(suite.gw.admin)
      .send(toolBody({ tenantId: 'elsewhere' }))
      .expect(201);
    await suite.gw.http.get(`/api/v1/admin/tools/${foreign.body.id}`).set(acmeAdmin).expect(404);
    const list = await suite.gw.http.get('/api/v1/admin/tools?pageSize=500').set(acmeAdmin).expect(200);
    const tenants = new Set(list.body.items.map((t: { tenantId: string | null }) => t.tenantId));
    expect([...tenants].sort()).toEqual([null, 'scoped'].sort());
    const platform = list.body.items.find((t: { name: string }) => t.name === 'web_search');
    await suite.gw.http.patch(`/api/v1/admin/tools/${platform.id}`).set(acmeAdmin).send({ enabled: false }).expect(403);
  });
});
