import { createKey, type TestGateway } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, describeEachDialect, type TestDatabase } from '@test/support/test-database';
import { startMcpSyncGateway } from '@test/mcp-services/support/mcp-sync-gateway';
import { CatalogMcpServer, catalogTool } from '@test/mcp-services/support/catalog-mcp.server';
import { McpSyncApi } from '@test/mcp-services/support/mcp-sync-fixtures';

const SECRETS_KEY = 'b2'.repeat(32);
const PLATFORM_TOKEN = 'platform-mcp-token-0123456789';

/** The Authorization header of every request the server received since `from`, by JSON-RPC method. */
function authorizations(server: CatalogMcpServer, from = 0): Array<[string, string | undefined]> {
  return server.requests.slice(from).map((r) => [r.method, r.authorization]);
}

describeEachDialect("MCP headers: sent on every MCP request, secrets from the owner's own scope", (dialect) => {
  const platformServer = new CatalogMcpServer([catalogTool('whoami')], { label: 'platform' });
  const tenantServer = new CatalogMcpServer([catalogTool('lookup')], { label: 'tenant' });
  const echoServer = new CatalogMcpServer([catalogTool('whoami')], { label: 'echo', echoAuthorization: true });
  let db: TestDatabase;
  let gw: TestGateway;
  let api: McpSyncApi;
  let acmeAdmin: { Authorization: string };
  let acmeRuntime: { Authorization: string };
  let agentId: string;
  const base = '/api/v1/admin/mcp-services';
  const bind = (toolId: string) =>
    gw.http.post(`/api/v1/admin/agents/${agentId}/tools`).set(gw.admin).send({ toolId }).expect(200);

  beforeAll(async () => {
    await Promise.all([platformServer.start(), tenantServer.start(), echoServer.start()]);
    db = await createTestDatabaseUrl(dialect);
    gw = await startMcpSyncGateway(db.url, { TOOL_SECRETS: `MCPTOKEN=${PLATFORM_TOKEN}`, SECRETS_KEY });
    api = new McpSyncApi(gw);
    acmeAdmin = await createKey(gw, 'acme', 'admin');
    acmeRuntime = await createKey(gw, 'acme', 'runtime');
    agentId = await api.createAgent('acme', 'mcp-headers-agent');
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all([platformServer.stop(), tenantServer.stop(), echoServer.stop()]);
    await db?.drop();
  });

  it("a platform service sends its headers with TOOL_SECRETS filled on the sync's requests and on its tools' calls", async () => {
    const service = (
      await gw.http
        .post(base)
        .set(gw.admin)
        .send({
          name: 'plat',
          kind: 'STATIC',
          url: platformServer.url,
          headers: { Authorization: 'Bearer ${secret:MCPTOKEN}' },
        })
        .expect(201)
    ).body;
    expect(service).toMatchObject({
      health: 'UP',
      headers: { Authorization: 'Bearer ${secret:MCPTOKEN}' },
      lastSync: { added: 1 },
    });
    const listed = authorizations(platformServer);
    expect(listed.map(([m]) => m)).toEqual(expect.arrayContaining(['initialize', 'tools/list']));
    for (const [, auth] of listed) expect(auth).toBe(`Bearer ${PLATFORM_TOKEN}`);

    const tools = (await gw.http.get(`${base}/${service.id}/tools`).set(gw.admin).expect(200)).body;
    expect(tools).toMatchObject({
      total: 1,
      page: 1,
      items: [
        { name: 'plat_whoami', headers: { Authorization: 'Bearer ${secret:MCPTOKEN}' }, mcpServiceId: service.id },
      ],
    });
    await bind(tools.items[0].id);
    const from = platformServer.requests.length;
    const result = await api.execute(acmeRuntime, agentId, 'plat_whoami', { q: 'x' });
    expect(result).toMatchObject({ status: 'COMPLETED', content: 'platform:whoami:{"q":"x"}' });
    const call = authorizations(platformServer, from).filter(([m]) => m === 'tools/call');
    expect(call).toEqual([['tools/call', `Bearer ${PLATFORM_TOKEN}`]]);
  });

  it('hides a secret the server echoes back from the result, its structured part and the tool log', async () => {
    const service = (
      await gw.http
        .post(base)
        .set(gw.admin)
        .send({
          name: 'echoing',
          kind: 'STATIC',
          url: echoServer.url,
          headers: { Authorization: 'Bearer ${secret:MCPTOKEN}' },
        })
        .expect(201)
    ).body;
    const [tool] = (await gw.http.get(`${base}/${service.id}/tools`).set(gw.admin).expect(200)).body.items;
    await bind(tool.id);
    const result = await gw.http
      .post(`/api/v1/tools/${tool.name}/execute`)
      .set(acmeRuntime)
      .send({ agentId, userId: 'u1', permissions: [], arguments: { q: 'who' } })
      .expect(200);

    // The server did get the secret, and quoted it back.
    expect(authorizations(echoServer).filter(([m]) => m === 'tools/call')).toEqual([
      ['tools/call', `Bearer ${PLATFORM_TOKEN}`],
    ]);
    expect(result.body).toMatchObject({
      status: 'COMPLETED',
      content: 'echo:whoami:{"q":"who"} sent with Authorization: Bearer ***',
    });
    expect(JSON.stringify(result.body)).not.toContain(PLATFORM_TOKEN);
    const logged = await gw.http.get(`/api/v1/admin/tool-calls?toolName=${tool.name}`).set(gw.admin).expect(200);
    expect(logged.body.items).toHaveLength(1);
    expect(JSON.stringify(logged.body)).not.toContain(PLATFORM_TOKEN);
  });

  it("a tenant's tool pointed at the platform service's URL never rides its authenticated session", async () => {
    const tool = (
      await gw.http
        .post('/api/v1/admin/tools')
        .set(acmeAdmin)
        .send({
          name: 'ride_along',
          description: 'Same server.',
          parameters: { type: 'object' },
          serviceType: 'MCP_REMOTE',
          endpoint: platformServer.url,
          remoteName: 'whoami',
          permissionTags: [],
          sideEffect: 'READ_ONLY',
        })
        .expect(201)
    ).body;
    await bind(tool.id);
    const from = platformServer.requests.length;
    expect(await api.execute(acmeRuntime, agentId, 'ride_along', { q: 'r' })).toMatchObject({ status: 'COMPLETED' });
    const sent = authorizations(platformServer, from);
    expect(sent.map(([m]) => m)).toEqual(expect.arrayContaining(['initialize', 'tools/call']));
    for (const [, auth] of sent) expect(auth).toBeUndefined();
  });

  it("a tenant's service cannot resolve a platform secret; with its own secret it syncs and calls with that", async () => {
    const created = (
      await gw.http
        .post(base)
        .set(acmeAdmin)
        .send({
          name: 'mine',
          kind: 'STATIC',
          url: tenantServer.url,
          headers: { Authorization: 'Bearer ${secret:MCPTOKEN}' },
        })
        .expect(201)
    ).body;
    expect(created.health).toBe('DOWN');
    expect(created.lastSync.error).toContain('tenant acme does not have');
    expect(tenantServer.requests).toEqual([]);

    await gw.http
      .put('/api/v1/admin/tenants/acme/secrets/MCPTOKEN')
      .set(acmeAdmin)
      .send({ value: 'acme-mcp-token' })
      .expect(201);
    const report = (await gw.http.post(`${base}/${created.id}/sync`).set(acmeAdmin).expect(200)).body;
    expect(report.added).toBe(1);
    const tool = (await gw.http.get(`${base}/${created.id}/tools`).set(acmeAdmin).expect(200)).body.items[0];
    await bind(tool.id);
    expect(await api.execute(acmeRuntime, agentId, tool.name, { q: 'y' })).toMatchObject({ status: 'COMPLETED' });
    const seen = authorizations(tenantServer);
    expect(seen.map(([m]) => m)).toEqual(expect.arrayContaining(['initialize', 'tools/list', 'tools/call']));
    for (const [, auth] of seen) expect(auth).toBe('Bearer acme-mcp-token');
    expect(JSON.stringify(tenantServer.requests)).not.toContain(PLATFORM_TOKEN);
  });

  it('an MCP_REMOTE tool registered by hand sends its headers (no longer ignored), on a session of its own', async () => {
    await gw.http
      .put('/api/v1/admin/tenants/acme/secrets/HAND_TOKEN')
      .set(acmeAdmin)
      .send({ value: 'hand-made-token' })
      .expect(201);
    const tool = (
      await gw.http
        .post('/api/v1/admin/tools')
        .set(acmeAdmin)
        .send({
          name: 'hand_lookup',
          description: 'By hand.',
          parameters: { type: 'object' },
          serviceType: 'MCP_REMOTE',
          endpoint: tenantServer.url,
          remoteName: 'lookup',
          permissionTags: [],
          sideEffect: 'READ_ONLY',
          headers: { Authorization: 'Bearer ${secret:HAND_TOKEN}', 'X-Team': 'hand' },
        })
        .expect(201)
    ).body;
    await bind(tool.id);
    const from = tenantServer.requests.length;
    expect(await api.execute(acmeRuntime, agentId, 'hand_lookup', { q: 'z' })).toMatchObject({
      status: 'COMPLETED',
      content: 'tenant:lookup:{"q":"z"}',
    });
    const sent = tenantServer.requests.slice(from);
    expect(sent.find((r) => r.method === 'tools/call')).toMatchObject({
      authorization: 'Bearer hand-made-token',
      headers: expect.objectContaining({ 'x-team': 'hand' }),
    });
    // Another credential to the same server never reuses the service's session: a new one was opened with these headers.
    expect(sent.find((r) => r.method === 'initialize')?.authorization).toBe('Bearer hand-made-token');
  });

  it('PATCH changes the headers of the service and its tools at once; DELETE disables its tools', async () => {
    const service = (await gw.http.get(base).set(acmeAdmin).expect(200)).body.items.find(
      (s: { name: string }) => s.name === 'mine',
    );
    await gw.http
      .put('/api/v1/admin/tenants/acme/secrets/NEXT_TOKEN')
      .set(acmeAdmin)
      .send({ value: 'next-token' })
      .expect(201);
    const literal = await gw.http
      .patch(`${base}/${service.id}`)
      .set(acmeAdmin)
      .send({ headers: { Authorization: 'Bearer not-a-reference' } })
      .expect(400);
    expect(JSON.stringify(literal.body)).not.toContain('not-a-reference');
    const patched = (
      await gw.http
        .patch(`${base}/${service.id}`)
        .set(acmeAdmin)
        .send({ headers: { 'X-Api-Key': '${secret:NEXT_TOKEN}' } })
        .expect(200)
    ).body;
    expect(patched).toMatchObject({ headers: { 'X-Api-Key': '${secret:NEXT_TOKEN}' }, health: 'UP' });
    const tool = (await gw.http.get(`${base}/${service.id}/tools`).set(acmeAdmin).expect(200)).body.items[0];
    expect(tool.version).toBeGreaterThan(1);
    expect(tool.headers).toEqual({ 'X-Api-Key': '${secret:NEXT_TOKEN}' });
    const from = tenantServer.requests.length;
    expect(await api.execute(acmeRuntime, agentId, tool.name, { q: 'w' })).toMatchObject({ status: 'COMPLETED' });
    const call = tenantServer.requests.slice(from).find((r) => r.method === 'tools/call')!;
    expect(call.headers['x-api-key']).toBe('next-token');
    expect(call.authorization).toBeUndefined();

    await gw.http.patch(`${base}/${service.id}`).set(gw.admin).send({ path: '/other' }).expect(400);
    const other = await createKey(gw, 'globex', 'admin');
    await gw.http.patch(`${base}/${service.id}`).set(other).send({ headers: null }).expect(404);
    await gw.http.delete(`${base}/${service.id}`).set(other).expect(404);
    await gw.http.get(`${base}/${service.id}/tools`).set(other).expect(404);

    const deleted = (await gw.http.delete(`${base}/${service.id}`).set(acmeAdmin).expect(200)).body;
    expect(deleted.id).toBe(service.id);
    await gw.http.get(`${base}/${service.id}`).set(acmeAdmin).expect(404);
    const after = (await gw.http.get(`/api/v1/admin/tools/${tool.id}`).set(acmeAdmin).expect(200)).body;
    expect(after.status).toBe('DISABLED');
    const res = await api.execute(acmeRuntime, agentId, tool.name, { q: 'v' });
    expect(res.status).toBe('FAILED');
  });
});
