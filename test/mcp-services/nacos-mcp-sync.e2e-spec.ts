import { NacosTestServer } from '@test/support/nacos/nacos-test-server';
import { createKey, toolBody, type TestGateway } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, type TestDatabase } from '@test/support/test-database';
import { findFreePort } from '@test/support/free-port';
import { waitFor } from '@test/support/wait-for';
import { startMcpSyncGateway } from './support/mcp-sync-gateway';
import { CatalogMcpServer, catalogTool } from './support/catalog-mcp.server';
import { McpSyncApi, type ServiceView } from './support/mcp-sync-fixtures';

const NS = 'mcp-e2e';
const GROUP = 'MCP_GROUP';
const SERVICE = 'weather-mcp';
const DEBOUNCE_MS = 200;
const PLATFORM_TOKEN = 'nacos-platform-token-0123456789';
const isWeather = (name: string): boolean => name.startsWith('weather_');

const forecast = catalogTool('forecast', { annotations: { readOnlyHint: true } });
const alerts = catalogTool('alerts');
const alertsV2 = catalogTool('alerts', {
  description: 'Severe weather alerts.',
  annotations: { destructiveHint: true },
});
const radar = catalogTool('radar', { annotations: { idempotentHint: true } });

describe('NacosMcpSync: Nacos services (real nacos client, Nacos v1 test server) backed by real MCP servers', () => {
  const nacos = new NacosTestServer({ pushDelayMs: 50 });
  const a = new CatalogMcpServer([forecast, alerts], { label: 'weather-a' });
  const b = new CatalogMcpServer([forecast, alerts], { label: 'weather-b' });
  const broken = new CatalogMcpServer([forecast, alerts], { label: 'broken' });
  let db: TestDatabase;
  let gw: TestGateway;
  let api: McpSyncApi;
  let runtime: { Authorization: string };
  let agentId: string;
  let service: ServiceView;
  let nacosAddr: string;

  const instance = (server: { port: number }, extra: { weight?: number; metadata?: Record<string, string> } = {}) => ({
    ip: '127.0.0.1',
    port: server.port,
    ...extra,
  });
  /** Calls `name` n times and returns which servers answered. */
  const labelsOf = async (name: string, n: number): Promise<Set<string>> => {
    const labels = new Set<string>();
    for (let i = 0; i < n; i++) {
      const result = await api.execute(runtime, agentId, name, { q: String(i) });
      expect(result).toMatchObject({ status: 'COMPLETED' });
      labels.add(result.content.split(':')[0]);
    }
    return labels;
  };

  beforeAll(async () => {
    const { addr } = await nacos.start();
    nacosAddr = addr;
    await Promise.all([a.start(), b.start(), broken.start()]);
    broken.failCalls = 'http-500';
    nacos.registerInstance(NS, GROUP, SERVICE, instance(a, { metadata: { 'mcp.path': '/mcp' } }));
    db = await createTestDatabaseUrl('sqlite');
    gw = await startMcpSyncGateway(db.url, {
      NACOS_SERVER_ADDR: addr,
      MCP_SYNC_DEBOUNCE_MS: String(DEBOUNCE_MS),
      NACOS_TENANT_NAMESPACES: `acme=${NS}|acme-other`,
      TOOL_SECRETS: `NACOS_MCP_TOKEN=${PLATFORM_TOKEN}`,
    });
    api = new McpSyncApi(gw);
    runtime = await createKey(gw, 'acme', 'runtime');
    agentId = await api.createAgent('acme', 'weather-bot');
  });

  afterAll(async () => {
    await gw?.close();
    await Promise.all([a.stop(), b.stop(), broken.stop()]);
    await nacos.stop();
    await db?.drop();
  });

  it('registers a NACOS service and syncs its tools at once, as MCP_NACOS rows of its tenant, visible to no agent', async () => {
    service = await api.createService({
      name: 'weather',
      kind: 'NACOS',
      serviceName: SERVICE,
      groupName: GROUP,
      namespaceId: NS,
      tenantId: 'acme',
    });
    expect(service).toMatchObject({
      kind: 'NACOS',
      toolPrefix: 'weather_',
      health: 'UP',
      tenantId: 'acme',
      lastSync: { added: 2, trigger: 'create', listedFrom: a.url },
    });
    expect(Date.parse(service.lastSyncAt!)).toBeGreaterThan(Date.now() - 10_000);
    const moved = await gw.http
      .patch(`/api/v1/admin/mcp-services/${service.id}`)
      .set(gw.admin)
      .send({ url: 'https://mcp.example.com/mcp' })
      .expect(400);
    expect(moved.body.error.details.fields).toEqual([
      {
        field: 'url',
        problems: [
          'can be changed only on STATIC services; weather is NACOS, whose address Nacos gives: leave url out',
        ],
      },
    ]);

    const tools = await api.toolsOf(service.id);
    expect(Object.keys(tools).sort()).toEqual(['weather_alerts', 'weather_forecast']);
    expect(tools.weather_forecast).toMatchObject({
      serviceType: 'MCP_NACOS',
      endpoint: `${SERVICE}@${GROUP}`,
      remoteName: 'forecast',
      source: 'MCP',
      sideEffect: 'READ_ONLY',
      status: 'ACTIVE',
      tenantId: 'acme',
      version: 1,
    });
    expect(tools.weather_alerts.sideEffect).toBe('SIDE_EFFECT');

    // Discovery is not authorization: every agent, of this tenant or another, sees none of them until bound.
    const specs = await api.specs(runtime, agentId);
    expect(specs.names.filter(isWeather)).toEqual([]);
    expect(specs.layers).toMatchObject({ weather_forecast: 'BOUND', weather_alerts: 'BOUND' });
    const globexRuntime = await createKey(gw, 'globex', 'runtime');
    const globexAgent = await api.createAgent('globex', 'other-bot');
    const globexSpecs = await api.specs(globexRuntime, globexAgent);
    expect(globexSpecs.names.filter(isWeather)).toEqual([]);
    expect(Object.keys(globexSpecs.layers).filter(isWeather)).toEqual([]);
    const refused = await api.execute(runtime, agentId, 'weather_forecast', { q: 'x' });
    expect(refused).toMatchObject({ status: 'FAILED', isError: true, attempts: 0, errorClass: 'NOT_VISIBLE' });
    expect(refused.content).toMatch(/BOUND/);
    expect(a.calls).toEqual([]);
  });

  it('calls a bound tool on the instance Nacos resolves, over the pooled session', async () => {
    const tools = await api.toolsOf(service.id);
    await api.bind(agentId, [tools.weather_forecast.id, tools.weather_alerts.id]);
    expect((await api.specs(runtime, agentId)).names.filter(isWeather)).toEqual(['weather_alerts', 'weather_forecast']);
    const result = await api.execute(runtime, agentId, 'weather_forecast', { q: 'Berlin' });
    expect(result).toMatchObject({ status: 'COMPLETED', content: 'weather-a:forecast:{"q":"Berlin"}', attempts: 1 });
    expect(a.callMetas.at(-1)).toEqual({
      tenantId: 'acme',
      userId: 'u1',
      sessionId: null,
      toolCallId: expect.stringMatching(/^direct-/),
      idempotencyKey: expect.stringMatching(/^gw1-/),
    });
  });

  it('turns instance changes within the debounce window into ONE sync, and spreads calls over the new instance', async () => {
    const listsBefore = a.listCalls + b.listCalls;
    const since = Date.now();
    const acksBefore = nacos.serviceCounters(NS, GROUP, SERVICE).pushAcks;
    nacos.registerInstance(NS, GROUP, SERVICE, instance(b, { weight: 1 }));
    nacos.pushNow(NS, GROUP, SERVICE);
    // A second change, pushed separately right behind the first: inside the debounce window however slow the machine.
    nacos.updateInstance(NS, GROUP, SERVICE, { ip: '127.0.0.1', port: b.port }, { weight: 2 });
    nacos.pushNow(NS, GROUP, SERVICE);
    await waitFor(() => nacos.serviceCounters(NS, GROUP, SERVICE).pushAcks >= acksBefore + 2, {
      description: 'both pushes to reach the gateway',
    });
    const report = await api.syncedAfter(service.id, since, (r) => r.trigger === 'instances-changed');
    expect(report).toMatchObject({ added: 0, updated: 0, disabled: 0, unchanged: 2 });
    // Absence of a second sync can only be seen by waiting: twice the debounce window.
    await new Promise((resolve) => setTimeout(resolve, 2 * DEBOUNCE_MS));
    expect(a.listCalls + b.listCalls - listsBefore).toBe(1);
    expect(await labelsOf('weather_forecast', 30)).toEqual(new Set(['weather-a', 'weather-b']));
  });

  it('stops calling an instance that turns unhealthy or is removed', async () => {
    let since = Date.now();
    nacos.setHealthy(NS, GROUP, SERVICE, { ip: '127.0.0.1', port: a.port }, false);
    await api.syncedAfter(service.id, since, (r) => r.trigger === 'instances-changed');
    expect(await labelsOf('weather_forecast', 10)).toEqual(new Set(['weather-b']));

    since = Date.now();
    nacos.setHealthy(NS, GROUP, SERVICE, { ip: '127.0.0.1', port: a.port }, true);
    nacos.removeInstance(NS, GROUP, SERVICE, { ip: '127.0.0.1', port: b.port });
    await api.syncedAfter(service.id, since, (r) => r.trigger === 'instances-changed' && r.listedFrom === a.url);
    expect(await labelsOf('weather_forecast', 10)).toEqual(new Set(['weather-a']));
  });

  it('fails over to another instance only when the call provably never reached the first, or the tool is READ_ONLY', async () => {
    // A registered instance whose port nothing listens on: connection refused, the request was never sent.
    const dead = { ip: '127.0.0.1', port: await findFreePort() };
    let since = Date.now();
    nacos.registerInstance(NS, GROUP, SERVICE, { ...dead, weight: 10_000 });
    await api.syncedAfter(service.id, since, (r) => r.trigger === 'instances-changed');
    await expect(api.execute(runtime, agentId, 'weather_alerts', { q: 'side effect' })).resolves.toMatchObject({
      status: 'COMPLETED',
      content: expect.stringMatching(/^weather-a:alerts:/),
    });
    nacos.removeInstance(NS, GROUP, SERVICE, dead);

    // An instance that received the call and answered HTTP 500: the request reached it.
    since = Date.now();
    nacos.registerInstance(NS, GROUP, SERVICE, instance(broken, { weight: 10_000 }));
    await api.syncedAfter(service.id, since, (r) => r.trigger === 'instances-changed');
    const aCallsBefore = a.calls.length;
    const brokenBefore = broken.calls.length;

    const readOnly = await api.execute(runtime, agentId, 'weather_forecast', { q: 'read' });
    expect(readOnly).toMatchObject({ status: 'COMPLETED', content: 'weather-a:forecast:{"q":"read"}', attempts: 1 });

    const sideEffect = await api.execute(runtime, agentId, 'weather_alerts', { q: 'write' });
    expect(sideEffect).toMatchObject({ status: 'FAILED', isError: true, attempts: 1 });
    expect(sideEffect.content).toMatch(/^执行失败: .*HTTP 500/);
    expect(broken.calls.slice(brokenBefore).map((c) => c.tool)).toEqual(['forecast', 'alerts']);
    expect(a.calls.slice(aCallsBefore).map((c) => c.tool)).toEqual(['forecast']);

    since = Date.now();
    nacos.removeInstance(NS, GROUP, SERVICE, { ip: '127.0.0.1', port: broken.port });
    await api.syncedAfter(service.id, since, (r) => r.trigger === 'instances-changed' && r.listedFrom === a.url);
  });

  it('follows tools added, changed and removed upstream (notifications/tools/list_changed), keeping bindings', async () => {
    let since = Date.now();
    await a.setTools([forecast, alertsV2, radar]);
    let report = await api.syncedAfter(service.id, since, (r) => r.trigger === 'tools-list-changed');
    expect(report).toMatchObject({
      added: 1,
      updated: 1,
      disabled: 0,
      unchanged: 1,
      tools: { added: ['weather_radar'], updated: ['weather_alerts'] },
    });
    let tools = await api.toolsOf(service.id);
    expect(tools.weather_alerts).toMatchObject({
      version: 2,
      description: 'Severe weather alerts.',
      sideEffect: 'HIGH_RISK',
    });
    expect(tools.weather_radar).toMatchObject({ status: 'ACTIVE', sideEffect: 'IDEMPOTENT', version: 1 });

    since = Date.now();
    await a.setTools([alertsV2, radar]);
    report = await api.syncedAfter(service.id, since, (r) => r.trigger === 'tools-list-changed');
    expect(report).toMatchObject({ disabled: 1, tools: { disabled: ['weather_forecast'] } });
    tools = await api.toolsOf(service.id);
    expect(tools.weather_forecast).toMatchObject({ status: 'DISABLED', version: 2 });
    const agent = (await gw.http.get(`/api/v1/admin/agents/${agentId}`).set(gw.admin).expect(200)).body;
    expect(agent.toolIds).toContain(tools.weather_forecast.id);
    expect((await api.specs(runtime, agentId)).layers.weather_forecast).toBe('ENABLED');

    since = Date.now();
    await a.setTools([forecast, alertsV2, radar]);
    report = await api.syncedAfter(service.id, since, (r) => r.trigger === 'tools-list-changed');
    expect(report).toMatchObject({ updated: 1, tools: { updated: ['weather_forecast'] } });
    expect((await api.toolsOf(service.id)).weather_forecast).toMatchObject({ status: 'ACTIVE', version: 3 });
    expect((await api.specs(runtime, agentId)).names).toContain('weather_forecast');
  });

  it("reports a name held by another source's tool, or another service's, as a collision and never overwrites it", async () => {
    const dbTool = (
      await gw.http
        .post('/api/v1/admin/tools')
        .set(gw.admin)
        .send(toolBody({ name: 'weather_lightning', tenantId: 'acme' }))
        .expect(201)
    ).body;
    const since = Date.now();
    await a.setTools([forecast, alertsV2, radar, catalogTool('lightning')]);
    const report = await api.syncedAfter(service.id, since, (r) => r.trigger === 'tools-list-changed');
    expect(report).toMatchObject({ added: 0, updated: 0, unchanged: 3 });
    expect(report.collisions).toEqual([
      expect.objectContaining({
        remoteName: 'lightning',
        name: 'weather_lightning',
        existingToolId: dbTool.id,
        existingSource: 'DB',
      }),
    ]);
    expect((await gw.http.get(`/api/v1/admin/tools/${dbTool.id}`).set(gw.admin).expect(200)).body).toMatchObject({
      source: 'DB',
      serviceType: 'HTTP',
      version: 1,
    });

    // A second service whose prefix makes the same names as the first one's tools.
    const copy = await api.createService({
      name: 'weather-copy',
      kind: 'STATIC',
      url: b.url,
      tenantId: 'acme',
      toolPrefix: 'weather_',
    });
    expect(copy.lastSync).toMatchObject({
      added: 0,
      collisions: [
        expect.objectContaining({ existingMcpServiceId: service.id, existingSource: 'MCP' }),
        expect.anything(),
      ],
    });
    expect(await api.toolsOf(copy.id)).toEqual({});
  });

  it('pages through tools/list (nextCursor) and names tools whose MCP names are not valid model names', async () => {
    const paged = await new CatalogMcpServer(
      [
        ...Array.from({ length: 8 }, (_v, i) => catalogTool(`tool_${i}`)),
        catalogTool('files.read'),
        catalogTool(`very_${'long_'.repeat(20)}name`),
        catalogTool('broken_schema', { inputSchema: { type: 'object', properties: { a: { type: 'strng' } } } }),
      ],
      { pageSize: 3 },
    ).start();
    try {
      const listed = await api.createService({ name: 'paged', kind: 'STATIC', url: paged.url });
      expect(paged.listCalls).toBe(4);
      expect(listed.lastSync).toMatchObject({
        added: 10,
        rejected: [
          {
            remoteName: 'broken_schema',
            problems: expect.arrayContaining([expect.stringMatching(/^inputSchema \/properties\/a\/type /)]),
          },
        ],
      });
      const names = Object.keys(await api.toolsOf(listed.id));
      expect(names).toHaveLength(10);
      for (const name of names) expect(name).toMatch(/^paged_[a-zA-Z0-9_-]{1,58}$/);
      expect(names).toContain('paged_tool_7');
      expect(names.find((n) => n.startsWith('paged_files_read_'))).toMatch(/^paged_files_read_[0-9a-f]{8}$/);
      expect(names.find((n) => n.startsWith('paged_very_'))).toHaveLength(64);
    } finally {
      await paged.stop();
    }
  });

  it("lets a tenant admin name only its tenant's Nacos namespaces (lookups use the platform's credentials)", async () => {
    const acmeAdmin = await createKey(gw, 'acme', 'admin');
    const create = (key: { Authorization: string }, body: Record<string, unknown>) =>
      gw.http
        .post('/api/v1/admin/mcp-services')
        .set(key)
        .send({ kind: 'NACOS', serviceName: SERVICE, groupName: GROUP, ...body });
    const elsewhere = await create(acmeAdmin, { name: 'peek', namespaceId: 'platform-internal' }).expect(403);
    expect(elsewhere.body.error).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining(`may name the Nacos namespaces ${NS}, acme-other (NACOS_TENANT_NAMESPACES)`),
    });
    const globexAdmin = await createKey(gw, 'globex', 'admin');
    const none = await create(globexAdmin, { name: 'peek' }).expect(403);
    expect(none.body.error.message).toContain('Tenant globex has no Nacos namespace');
    // Omitted: the tenant's first namespace, where the service is found and synced.
    const own = await create(acmeAdmin, { name: 'own-weather' }).expect(201);
    expect(own.body).toMatchObject({ namespaceId: NS, tenantId: 'acme', health: 'UP' });
    expect(Object.keys(await api.toolsOf(own.body.id))).toContain('own-weather_forecast');
  });
  it('closes the pooled sessions to its instances when a NACOS service is changed or deleted, as a STATIC one', async () => {
    const served = await new CatalogMcpServer([catalogTool('ping', { annotations: { readOnlyHint: true } })]).start();
    const closedSessions = () => served.requests.filter((r) => r.method === 'DELETE').length;
    try {
      nacos.registerInstance(NS, GROUP, 'retired-sessions', instance(served));
      const retiring = await api.createService({
        name: 'retiring',
        kind: 'NACOS',
        serviceName: 'retired-sessions',
        groupName: GROUP,
        namespaceId: NS,
        tenantId: 'acme',
        headers: { 'X-Team': 'first' },
      });
      await api.bind(agentId, [(await api.toolsOf(retiring.id)).retiring_ping.id]);
      expect(await api.execute(runtime, agentId, 'retiring_ping')).toMatchObject({ status: 'COMPLETED' });
      expect(closedSessions()).toBe(0);

      // New headers: the session opened with the old ones is closed, not left open beside the new one.
      await gw.http
        .patch(`/api/v1/admin/mcp-services/${retiring.id}`)
        .set(gw.admin)
        .send({ headers: { 'X-Team': 'second' } })
        .expect(200);
      await waitFor(() => closedSessions() === 1, { description: 'the session with the old headers to be closed' });
      expect(await api.execute(runtime, agentId, 'retiring_ping')).toMatchObject({ status: 'COMPLETED' });

      await gw.http.delete(`/api/v1/admin/mcp-services/${retiring.id}`).set(gw.admin).expect(200);
      await waitFor(() => closedSessions() === 2, { description: "the deleted service's session to be closed" });
    } finally {
      await served.stop();
    }
  });
  it('hides a secret its instance echoes back from what the tenant calling the tool reads', async () => {
    const echoing = await new CatalogMcpServer([catalogTool('whoami', { annotations: { readOnlyHint: true } })], {
      label: 'echoing',
      echoAuthorization: true,
    }).start();
    try {
      nacos.registerInstance(NS, GROUP, 'echoing-upstream', instance(echoing));
      const service = await api.createService({
        name: 'echoing',
        kind: 'NACOS',
        serviceName: 'echoing-upstream',
        groupName: GROUP,
        namespaceId: NS,
        headers: { Authorization: 'Bearer ${secret:NACOS_MCP_TOKEN}' },
      });
      await api.bind(agentId, [(await api.toolsOf(service.id)).echoing_whoami.id]);
      const result = await api.execute(runtime, agentId, 'echoing_whoami', { q: 'who' });
      expect(echoing.requests.filter((r) => r.method === 'tools/call').map((r) => r.authorization)).toEqual([
        `Bearer ${PLATFORM_TOKEN}`,
      ]);
      expect(result).toMatchObject({
        status: 'COMPLETED',
        content: 'echoing:whoami:{"q":"who"} sent with Authorization: Bearer ***',
      });
      expect(JSON.stringify(result)).not.toContain(PLATFORM_TOKEN);
    } finally {
      await echoing.stop();
    }
  });
  it("syncs a second record of one Nacos service on another instance while the first record's sync runs", async () => {
    const shared = await new CatalogMcpServer([catalogTool('ping')]).start();
    const other = await startMcpSyncGateway(db.url, {
      NACOS_SERVER_ADDR: nacosAddr,
      MCP_SYNC_DEBOUNCE_MS: String(DEBOUNCE_MS),
      GATEWAY_INSTANCE_ID: 'gw-other',
    });
    try {
      nacos.registerInstance(NS, GROUP, 'shared-upstream', instance(shared));
      const upstream = { kind: 'NACOS', serviceName: 'shared-upstream', groupName: GROUP, namespaceId: NS };
      const platformRecord = await api.createService({ name: 'shared-platform', ...upstream });
      shared.holdLists();
      const listsBefore = shared.listCalls;
      const first = gw.http
        .post(`/api/v1/admin/mcp-services/${platformRecord.id}/sync`)
        .set(gw.admin)
        .then((res) => res);
      await waitFor(() => shared.listCalls > listsBefore, { description: "the platform record's sync to list" });

      // Meanwhile another instance registers a tenant's record of the same Nacos service: its own tools to sync.
      let answered = false;
      const creating = other.http
        .post('/api/v1/admin/mcp-services')
        .set(other.admin)
        .send({ name: 'shared-acme', tenantId: 'acme', ...upstream })
        .then((res) => {
          answered = true;
          return res;
        });
      await waitFor(() => answered || shared.listCalls > listsBefore + 1, {
        description: "the tenant record's sync to list (or to answer)",
      });
      shared.release();
      expect((await first).body).toMatchObject({ skipped: false });
      const created = (await creating).body;
      expect(created.lastSync).toMatchObject({ skipped: false, added: 1 });
      expect(Object.keys(await api.toolsOf(created.id))).toEqual(['shared-acme_ping']);
    } finally {
      shared.release();
      await other.close();
      await shared.stop();
    }
  });
});
