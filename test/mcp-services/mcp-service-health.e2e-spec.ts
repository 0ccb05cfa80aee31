import { NacosTestServer } from '@test/support/nacos/nacos-test-server';
import { createKey, type TestGateway } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, type TestDatabase } from '@test/support/test-database';
import { SchedulerRegistry } from '@nestjs/schedule';
import { MCP_REPAIR_JOB } from '@app/modules/mcp-services/mcp-service-repair.job';
import { McpServiceRepairService } from '@app/modules/mcp-services/mcp-service-repair.service';
import { startMcpSyncGateway } from './support/mcp-sync-gateway';
import { CatalogMcpServer, catalogTool } from './support/catalog-mcp.server';
import { McpSyncApi } from './support/mcp-sync-fixtures';

const NS = 'public';
const GROUP = 'DEFAULT_GROUP';
const INTERVAL_MS = 400;
/**
 * The contract: a service with no healthy instance is hidden within two intervals. Counted in health-check rounds
 * (see withinRounds), not in wall time, which a loaded CI machine stretches however much room it is given.
 */
const HIDDEN_WITHIN_ROUNDS = 2;

describe('NacosMcpSync scheduled health check and repair (MCP_HEALTH_INTERVAL_MS)', () => {
  const nacos = new NacosTestServer({ pushDelayMs: 50 });
  const maps = new CatalogMcpServer([catalogTool('route', { annotations: { readOnlyHint: true } })], { label: 'maps' });
  const search = new CatalogMcpServer([catalogTool('lookup', { annotations: { readOnlyHint: true } })], {
    label: 'search',
  });
  let db: TestDatabase;
  let gw: TestGateway;
  let api: McpSyncApi;
  let runtime: { Authorization: string };
  let agentId: string;
  let nacosAddr: string;
  const ids: Record<string, string> = {};

  const mapsInstance = () => ({ ip: '127.0.0.1', port: maps.port });
  const visibility = async (name: string) => {
    const specs = await api.specs(runtime, agentId);
    return { visible: specs.names.includes(name), layer: specs.layers[name], reason: specs.reasons[name] };
  };
  /**
   * Waits for `check` to hold, and fails once it still does not after `rounds` health-check rounds that began after
   * this call (a round on its way when it is called is not counted: it may have looked before the change).
   */
  async function withinRounds<T>(rounds: number, check: () => Promise<T>, description: string): Promise<T> {
    const repair = gw.app.get(McpServiceRepairService);
    const repairAll = repair.repairAll.bind(repair);
    let finished = 0;
    const counted = jest.spyOn(repair, 'repairAll').mockImplementation(async () => {
      const round = await repairAll();
      finished++;
      return round;
    });
    try {
      for (const deadline = Date.now() + 30_000; ;) {
        const before = finished;
        const value = await check();
        if (value) return value;
        if (before >= rounds) throw new Error(`${description}: still not so after ${before} health-check rounds`);
        if (Date.now() > deadline) throw new Error(`${description}: only ${before} health-check rounds in 30 s`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      counted.mockRestore();
    }
  }

  beforeAll(async () => {
    nacosAddr = (await nacos.start()).addr;
    await Promise.all([maps.start(), search.start()]);
    nacos.registerInstance(NS, GROUP, 'maps-mcp', mapsInstance());
    db = await createTestDatabaseUrl('sqlite');
    gw = await startMcpSyncGateway(db.url, {
      NACOS_SERVER_ADDR: nacosAddr,
      MCP_REPAIR_ENABLED: 'true',
      MCP_HEALTH_INTERVAL_MS: String(INTERVAL_MS),
    });
    api = new McpSyncApi(gw);
    runtime = await createKey(gw, 'acme', 'runtime');
    agentId = await api.createAgent('acme', 'travel-bot');
    ids.maps = (await api.createService({ name: 'maps', kind: 'NACOS', serviceName: 'maps-mcp' })).id;
    ids.search = (await api.createService({ name: 'search', kind: 'STATIC', url: search.url })).id;
    const tools = { ...(await api.toolsOf(ids.maps)), ...(await api.toolsOf(ids.search)) };
    await api.bind(agentId, [tools.maps_route.id, tools.search_lookup.id]);
  });

  afterAll(async () => {
    await gw?.close();
    await Promise.all([maps.stop(), search.stop()]);
    await nacos.stop();
    await db?.drop();
  });

  it('runs the repair as a job of the SchedulerRegistry, only when MCP_REPAIR_ENABLED', () => {
    expect(gw.app.get(SchedulerRegistry).getIntervals()).toContain(MCP_REPAIR_JOB);
  });

  it('hides the tools of a Nacos service with no healthy instance within two intervals, refuses their calls, and shows them again when it recovers', async () => {
    await expect(visibility('maps_route')).resolves.toMatchObject({ visible: true });
    // The last instance goes: the nacos client never hands an empty list to subscribers, so only the check sees it.
    nacos.removeInstance(NS, GROUP, 'maps-mcp', mapsInstance());
    await withinRounds(
      HIDDEN_WITHIN_ROUNDS,
      async () => (await visibility('maps_route')).layer === 'DEPENDENCIES',
      'maps_route hidden (DEPENDENCIES)',
    );
    expect((await visibility('maps_route')).reason).toMatch(/no healthy instance of DEFAULT_GROUP@@maps-mcp/);
    expect(await api.service(ids.maps)).toMatchObject({
      health: 'DOWN',
      healthReason: expect.stringMatching(/no healthy instance/),
    });

    // A bound tool of a service that went away is refused at call time, before anything is sent.
    const callsBefore = maps.calls.length;
    const refused = await api.execute(runtime, agentId, 'maps_route', { q: 'home' });
    expect(refused).toMatchObject({ status: 'FAILED', isError: true, attempts: 0, errorClass: 'NOT_VISIBLE' });
    expect(refused.content).toMatch(/^执行失败: .*DEPENDENCIES/);
    expect(maps.calls.length).toBe(callsBefore);
    // The other service is unaffected.
    await expect(visibility('search_lookup')).resolves.toMatchObject({ visible: true });

    nacos.registerInstance(NS, GROUP, 'maps-mcp', mapsInstance());
    await withinRounds(
      HIDDEN_WITHIN_ROUNDS,
      async () => (await visibility('maps_route')).visible,
      'maps_route visible again',
    );
    expect(await api.service(ids.maps)).toMatchObject({ health: 'UP', healthReason: null });
    await expect(api.execute(runtime, agentId, 'maps_route', { q: 'home' })).resolves.toMatchObject({
      status: 'COMPLETED',
      content: 'maps:route:{"q":"home"}',
    });
  });

  it('marks a service whose only instance stops answering (still registered in Nacos) DOWN, and UP when it is back', async () => {
    await maps.stop();
    await withinRounds(HIDDEN_WITHIN_ROUNDS, async () => (await api.service(ids.maps)).health === 'DOWN', 'maps DOWN');
    expect((await api.service(ids.maps)).healthReason).toMatch(/no instance answered tools\/list/);
    expect((await visibility('maps_route')).layer).toBe('DEPENDENCIES');
    await maps.start();
    await withinRounds(
      HIDDEN_WITHIN_ROUNDS,
      async () => (await visibility('maps_route')).visible,
      'maps_route visible again',
    );
  });

  it('does the same for a static URL', async () => {
    await search.stop();
    await withinRounds(
      HIDDEN_WITHIN_ROUNDS,
      async () => (await visibility('search_lookup')).layer === 'DEPENDENCIES',
      'search_lookup hidden',
    );
    await search.start();
    await withinRounds(
      HIDDEN_WITHIN_ROUNDS,
      async () => (await visibility('search_lookup')).visible,
      'search_lookup visible again',
    );
    expect((await api.service(ids.search)).health).toBe('UP');
  });

  it('repairs what events missed: a tool list that changed without a notification is synced by the next check', async () => {
    const since = Date.now();
    // Changed without notifications/tools/list_changed, as a server without listChanged support would.
    await search.setTools([catalogTool('lookup', { annotations: { readOnlyHint: true } }), catalogTool('suggest')], {
      notify: false,
    });
    const report = await withinRounds(
      HIDDEN_WITHIN_ROUNDS,
      async () => {
        const last = (await api.service(ids.search)).lastSync;
        return last && Date.parse(last.finishedAt) >= since && last.trigger === 'repair' ? last : undefined;
      },
      'a repair sync of search',
    );
    expect(report).toMatchObject({ added: 1, tools: { added: ['search_suggest'] } });
  });

  it('after a restart, keeps a service last seen DOWN hidden, and syncs each Nacos service once its instances arrive', async () => {
    await maps.stop();
    await withinRounds(HIDDEN_WITHIN_ROUNDS, async () => (await api.service(ids.maps)).health === 'DOWN', 'maps DOWN');
    await gw.close();
    await maps.start();
    // The next gateway runs no scheduled check: what it knows at first comes from the rows and the Nacos subscription.
    const since = Date.now();
    // A long debounce leaves time to look before the start-up sync runs.
    gw = await startMcpSyncGateway(db.url, {
      NACOS_SERVER_ADDR: nacosAddr,
      MCP_REPAIR_ENABLED: 'false',
      MCP_SYNC_DEBOUNCE_MS: '1500',
    });
    api = new McpSyncApi(gw);
    expect(gw.app.get(SchedulerRegistry).getIntervals()).not.toContain(MCP_REPAIR_JOB);
    const hiddenAtStart = await visibility('maps_route');
    const report = await api.syncedAfter(ids.maps, since, (r) => r.trigger === 'startup');
    expect(report).toMatchObject({ skipped: false, unchanged: 1 });
    expect(hiddenAtStart.layer).toBe('DEPENDENCIES');
    await expect(visibility('maps_route')).resolves.toMatchObject({ visible: true });
  });
});
