import { createKey, type TestGateway } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, describeEachDialect, type TestDatabase } from '@test/support/test-database';
import { ConfigVersionService } from '@app/database/config-version.service';
import { McpServiceSyncService } from '@app/modules/mcp-services/mcp-service-sync.service';
import { McpServiceWatcher } from '@app/modules/mcp-services/mcp-service.watcher';
import { startMcpSyncGateway } from './support/mcp-sync-gateway';
import { CatalogMcpServer, catalogTool } from './support/catalog-mcp.server';
import { McpSyncApi } from './support/mcp-sync-fixtures';

describeEachDialect('POST|GET /api/v1/admin/mcp-services (admin API, tenancy, errors)', (dialect) => {
  const server = new CatalogMcpServer([catalogTool('ping', { annotations: { readOnlyHint: true } })]);
  let db: TestDatabase;
  let gw: TestGateway;
  let api: McpSyncApi;
  let acmeAdmin: { Authorization: string };
  let globexAdmin: { Authorization: string };
  let spare: CatalogMcpServer | undefined;
  const base = '/api/v1/admin/mcp-services';

  beforeAll(async () => {
    await server.start();
    db = await createTestDatabaseUrl(dialect);
    // No NACOS_SERVER_ADDR: Nacos discovery is off in this gateway.
    gw = await startMcpSyncGateway(db.url);
    api = new McpSyncApi(gw);
    acmeAdmin = await createKey(gw, 'acme', 'admin');
    globexAdmin = await createKey(gw, 'globex', 'admin');
  });

  afterAll(async () => {
    await gw?.close();
    await server.stop();
    await spare?.stop();
    await db?.drop();
  });

  it("validates each kind's fields and names every problem", async () => {
    const noUrl = await gw.http.post(base).set(gw.admin).send({ name: 'a', kind: 'STATIC' }).expect(400);
    expect(noUrl.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { fields: [{ field: 'url', problems: [expect.stringMatching(/required for kind STATIC/)] }] },
    });
    const ftp = await gw.http
      .post(base)
      .set(gw.admin)
      .send({ name: 'a', kind: 'STATIC', url: 'ftp://files.example.com/mcp', serviceName: 'x' })
      .expect(400);
    expect(ftp.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual(['serviceName', 'url']);
    const noService = await gw.http
      .post(base)
      .set(gw.admin)
      .send({ name: 'a', kind: 'NACOS', url: server.url })
      .expect(400);
    expect(noService.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual([
      'serviceName',
      'url',
    ]);
    const badName = await gw.http
      .post(base)
      .set(gw.admin)
      .send({ name: 'has space', kind: 'SOAP', toolPrefix: 'x'.repeat(40) })
      .expect(400);
    expect(badName.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual([
      'kind',
      'name',
      'toolPrefix',
    ]);
  });

  it('refuses a NACOS service while Nacos discovery is off', async () => {
    const res = await gw.http
      .post(base)
      .set(gw.admin)
      .send({ name: 'nacos-one', kind: 'NACOS', serviceName: 'svc' })
      .expect(409);
    expect(res.body.error).toMatchObject({
      code: 'NACOS_NOT_CONFIGURED',
      message: expect.stringMatching(/NACOS_SERVER_ADDR/),
    });
  });

  it("registers a tenant's service with its tenant admin key; other tenants see neither it nor its tools", async () => {
    const created = (
      await gw.http.post(base).set(acmeAdmin).send({ name: 'pinger', kind: 'STATIC', url: server.url }).expect(201)
    ).body;
    expect(created).toMatchObject({ tenantId: 'acme', health: 'UP', lastSync: { added: 1 } });
    expect((await api.toolsOf(created.id)).pinger_ping).toMatchObject({
      tenantId: 'acme',
      serviceType: 'MCP_REMOTE',
      endpoint: server.url,
    });

    await gw.http.get(`${base}/${created.id}`).set(globexAdmin).expect(404);
    await gw.http.post(`${base}/${created.id}/sync`).set(globexAdmin).expect(404);
    expect((await gw.http.get(base).set(globexAdmin).expect(200)).body).toEqual({
      items: [],
      total: 0,
      page: 1,
      pageSize: 50,
    });
    const globexTools = (await gw.http.get('/api/v1/admin/tools?source=MCP').set(globexAdmin).expect(200)).body.items;
    expect(globexTools).toEqual([]);
    await gw.http.get(`${base}/${created.id}`).set(acmeAdmin).expect(200);

    // A tenant admin may not register platform-wide or in another tenant; runtime keys may not register at all.
    await gw.http
      .post(base)
      .set(acmeAdmin)
      .send({ name: 'x', kind: 'STATIC', url: server.url, tenantId: null })
      .expect(403);
    await gw.http
      .post(base)
      .set(acmeAdmin)
      .send({ name: 'x', kind: 'STATIC', url: server.url, tenantId: 'globex' })
      .expect(403);
    const acmeRuntime = await createKey(gw, 'acme', 'runtime');
    await gw.http.get(base).set(acmeRuntime).expect(403);
    await gw.http.get(base).expect(401);
  });

  it('keeps names unique per scope (409), lists with paging and reads one with health and lastSyncAt', async () => {
    const platform = await api.createService({
      name: 'pinger',
      kind: 'STATIC',
      url: server.url,
      toolPrefix: 'platform_',
    });
    expect(platform.tenantId).toBeNull();
    const dup = await gw.http
      .post(base)
      .set(gw.admin)
      .send({ name: 'pinger', kind: 'STATIC', url: server.url })
      .expect(409);
    expect(dup.body.error.code).toBe('MCP_SERVICE_NAME_TAKEN');
    await gw.http.post(base).set(acmeAdmin).send({ name: 'pinger', kind: 'STATIC', url: server.url }).expect(409);

    const page1 = (await gw.http.get(`${base}?page=1&pageSize=1`).set(gw.admin).expect(200)).body;
    const page2 = (await gw.http.get(`${base}?page=2&pageSize=1`).set(gw.admin).expect(200)).body;
    expect(page1).toMatchObject({
      total: 2,
      page: 1,
      pageSize: 1,
      items: [expect.objectContaining({ name: 'pinger' })],
    });
    expect(page2.items).toHaveLength(1);
    expect(page2.items[0].id).not.toBe(page1.items[0].id);
    expect(
      (await gw.http.get(`${base}?tenantId=acme`).set(gw.admin).expect(200)).body.items.map(
        (s: { tenantId: string }) => s.tenantId,
      ),
    ).toEqual(['acme']);
    const badTenant = await gw.http.get(`${base}?tenantId=a%20b`).set(gw.admin).expect(400);
    expect(badTenant.body.error.details.fields).toEqual([
      { field: 'tenantId', problems: ['tenantId must be 1-64 letters, digits, _ . or -'] },
    ]);

    const one = await api.service(platform.id);
    expect(one).toMatchObject({ health: 'UP', healthReason: null, kind: 'STATIC', url: server.url });
    expect(new Date(one.lastSyncAt!).toISOString()).toBe(one.lastSyncAt);
  });

  it('answers a manual sync with the report, and 502 with the reason when the server is unreachable (its tools stay)', async () => {
    spare = await new CatalogMcpServer([catalogTool('ping')]).start();
    const unreachable = await api.createService({ name: 'flaky', kind: 'STATIC', url: spare.url });
    expect((await api.toolsOf(unreachable.id)).flaky_ping.status).toBe('ACTIVE');
    await spare.stop();
    const res = await gw.http.post(`${base}/${unreachable.id}/sync`).set(gw.admin).expect(502);
    expect(res.body.error).toMatchObject({
      code: 'MCP_SERVICE_UNREACHABLE',
      details: { serviceId: unreachable.id, reason: expect.stringMatching(/no instance answered/) },
    });
    expect(await api.service(unreachable.id)).toMatchObject({
      health: 'DOWN',
      lastSync: { error: expect.any(String) },
    });
    expect((await api.toolsOf(unreachable.id)).flaky_ping.status).toBe('ACTIVE');

    const never = await api.createService({
      name: 'never',
      kind: 'STATIC',
      // The discard port, where nothing listens: a port found free may be taken by another suite's server before the
      // sync connects (a CI run met a 404 there instead of a refusal).
      url: 'http://127.0.0.1:9/mcp',
    });
    expect(never).toMatchObject({
      health: 'DOWN',
      lastSyncAt: null,
      lastSync: { added: 0, error: expect.stringMatching(/ECONNREFUSED|refused/i) },
    });

    const ok = await api.sync(
      (await gw.http.get(`${base}?pageSize=500`).set(gw.admin)).body.items.find(
        (s: { name: string; tenantId: string | null }) => s.name === 'pinger' && s.tenantId === 'acme',
      ).id,
    );
    expect(ok).toMatchObject({
      added: 0,
      updated: 0,
      disabled: 0,
      unchanged: 1,
      collisions: [],
      skipped: false,
      trigger: 'admin',
    });
  });

  it('answers 201 with the service when its first sync fails outright; POST .../sync then brings its tools', async () => {
    const sync = gw.app.get(McpServiceSyncService);
    const failing = jest
      .spyOn(sync, 'sync')
      .mockRejectedValueOnce(new Error('The tools of MCP service half kept changing while being synced; try again.'));
    try {
      const created = await gw.http
        .post(base)
        .set(gw.admin)
        .send({ name: 'half', kind: 'STATIC', url: server.url })
        .expect(201);
      expect(created.body).toMatchObject({ name: 'half', health: 'UNKNOWN', lastSync: null });
      // Not a service left behind a 500: it is listed, and a second create would be a 409, not a retry.
      expect(await api.service(created.body.id)).toMatchObject({ name: 'half' });
      const report = await api.sync(created.body.id);
      expect(report).toMatchObject({ added: 1, trigger: 'admin' });
      expect(Object.keys(await api.toolsOf(created.body.id))).toEqual(['half_ping']);
    } finally {
      failing.mockRestore();
    }
  });

  it('answers 200 with the stored change when the sync after a PATCH fails outright, and keeps the service watched', async () => {
    const moved = await new CatalogMcpServer([catalogTool('ping'), catalogTool('pong')]).start();
    const sync = gw.app.get(McpServiceSyncService);
    try {
      const created = await api.createService({ name: 'mover', kind: 'STATIC', url: server.url });
      const failing = jest
        .spyOn(sync, 'sync')
        .mockRejectedValueOnce(new Error('MCP service mover kept being changed while being synced; try again.'));
      try {
        const patched = await gw.http.patch(`${base}/${created.id}`).set(gw.admin).send({ url: moved.url }).expect(200);
        expect(patched.body).toMatchObject({ name: 'mover', url: moved.url });
      } finally {
        failing.mockRestore();
      }
      // Watched again (not left unwatched until a restart), and the next sync reads the new server.
      expect(gw.app.get(McpServiceWatcher).isWatched(created.id)).toBe(true);
      expect(await api.sync(created.id)).toMatchObject({ added: 1, trigger: 'admin' });
      expect(Object.keys(await api.toolsOf(created.id)).sort()).toEqual(['mover_ping', 'mover_pong']);
    } finally {
      await moved.stop();
    }
  });

  it("moves only its tenant's configuration version when a tenant's service syncs, never every tenant's", async () => {
    const versions = gw.app.get(ConfigVersionService);
    const own = await new CatalogMcpServer([catalogTool('lookup')]).start();
    try {
      const globexBefore = await versions.read('globex');
      const acmeBefore = await versions.read('acme');
      const created = await api.createService({ name: 'acme-only', kind: 'STATIC', url: own.url, tenantId: 'acme' });
      expect(created.lastSync).toMatchObject({ added: 1 });
      expect(await versions.read('acme')).not.toBe(acmeBefore);
      expect(await versions.read('globex')).toBe(globexBefore);
    } finally {
      await own.stop();
    }
  });

  it('syncs a server that keeps sending notifications/tools/list_changed at most once per debounce window', async () => {
    const chatty = await new CatalogMcpServer([catalogTool('ping')]).start();
    try {
      await api.createService({ name: 'chatty', kind: 'STATIC', url: chatty.url, tenantId: 'acme' });
      const listsBefore = chatty.listCalls;
      // One second of notifications, one every 10 ms; the gateway debounces syncs by 200 ms (startMcpSyncGateway).
      for (const end = Date.now() + 1000; Date.now() < end;) {
        await chatty.setTools([catalogTool('ping')]);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(chatty.listCalls - listsBefore).toBeGreaterThan(0);
      expect(chatty.listCalls - listsBefore).toBeLessThanOrEqual(7);
    } finally {
      await chatty.stop();
    }
  });

  it("brings a deleted service's tools back, bindings kept, when it is registered again in its scope", async () => {
    const tool = async (id: string) =>
      (await gw.http.get(`/api/v1/admin/tools/${id}`).set(gw.admin).expect(200)).body as Record<string, unknown>;
    const first = await api.createService({ name: 'returning', kind: 'STATIC', url: server.url, tenantId: 'acme' });
    const ping = (await api.toolsOf(first.id)).returning_ping;
    const agentId = await api.createAgent('acme', 'returning-bot');
    await api.bind(agentId, [ping.id]);
    await gw.http.delete(`${base}/${first.id}`).set(gw.admin).expect(200);
    expect(await tool(ping.id)).toMatchObject({ status: 'DISABLED', mcpServiceId: first.id });

    // A platform-wide service never takes a tenant's tool: it registers its own of that name beside acme's.
    const platform = await api.createService({ name: 'returning', kind: 'STATIC', url: server.url });
    expect(platform.lastSync).toMatchObject({ added: 1, collisions: [] });
    const platformPing = (await api.toolsOf(platform.id)).returning_ping;
    expect(platformPing.id).not.toBe(ping.id);
    expect(await tool(ping.id)).toMatchObject({ status: 'DISABLED', mcpServiceId: first.id, tenantId: 'acme' });

    const again = await api.createService({ name: 'returning', kind: 'STATIC', url: server.url, tenantId: 'acme' });
    expect(again.lastSync).toMatchObject({ added: 1, collisions: [], tools: { added: ['returning_ping'] } });
    expect(await tool(ping.id)).toMatchObject({ status: 'ACTIVE', mcpServiceId: again.id, version: ping.version + 2 });
    const specs = await api.specs(await createKey(gw, 'acme', 'runtime'), agentId);
    expect(specs.names).toContain('returning_ping');
  });

  it('documents the endpoints in Swagger', async () => {
    const doc = (await gw.http.get('/docs-json').expect(200)).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/admin/mcp-services',
        '/api/v1/admin/mcp-services/{id}',
        '/api/v1/admin/mcp-services/{id}/sync',
      ]),
    );
    expect(Object.keys(doc.paths['/api/v1/admin/mcp-services/{id}/sync'].post.responses)).toEqual(
      expect.arrayContaining(['200', '404', '502']),
    );
    expect(doc.components.schemas.McpSyncReportDto.required).toEqual(
      expect.arrayContaining(['added', 'updated', 'disabled', 'unchanged', 'collisions']),
    );
  });
});
