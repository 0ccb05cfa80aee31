import { DataSource } from 'typeorm';
import { NacosTestServer } from '@test/support/nacos/nacos-test-server';
import { createKey, type TestGateway } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, type TestDatabase } from '@test/support/test-database';
import { McpServiceRepairService } from '@app/modules/mcp-services/mcp-service-repair.service';
import { startMcpSyncGateway } from './support/mcp-sync-gateway';
import { CatalogMcpServer, catalogTool } from './support/catalog-mcp.server';
import { McpSyncApi } from './support/mcp-sync-fixtures';

const MOVED_NS = 'shared-ns';
const ACME_NS = 'acme-ns';
const GROUP = 'MCP_GROUP';
/** One Nacos service per record, so Nacos's list requests tell which record read the moved namespace. */
const UPSTREAM = { chosen: 'chosen-mcp', assigned: 'assigned-mcp', legacy: 'legacy-mcp' } as const;

/**
 * A namespace a tenant admin chose stays within that tenant's NACOS_TENANT_NAMESPACES at every lookup, sync and
 * call: once the platform moves it to another tenant, the service reads nothing there (Nacos is read with the
 * platform's credentials). A namespace the platform admin assigned is a platform decision and stays, and so does
 * the namespace of a service registered before the gateway recorded who chose it.
 */
describe('a Nacos namespace moved to another tenant (NACOS_TENANT_NAMESPACES changed)', () => {
  const nacos = new NacosTestServer({ pushDelayMs: 50 });
  const server = new CatalogMcpServer([catalogTool('lookup', { annotations: { readOnlyHint: true } })], {
    label: 'moved',
  });
  let nacosAddr: string;
  let db: TestDatabase;
  let gw: TestGateway | undefined;
  const ids: Record<keyof typeof UPSTREAM, string> = { chosen: '', assigned: '', legacy: '' };
  let agentId: string;

  const start = (tenantNamespaces: string) =>
    startMcpSyncGateway(db.url, { NACOS_SERVER_ADDR: nacosAddr, NACOS_TENANT_NAMESPACES: tenantNamespaces });
  /** Lookups of the tenant-chosen record's Nacos service (the other records read their own). */
  const chosenLookups = () => nacos.serviceCounters(MOVED_NS, GROUP, UPSTREAM.chosen).listRequests;
  let lookupsBeforeMove: number;

  beforeAll(async () => {
    nacosAddr = (await nacos.start()).addr;
    await server.start();
    for (const name of Object.values(UPSTREAM))
      nacos.registerInstance(MOVED_NS, GROUP, name, { ip: '127.0.0.1', port: server.port });
    db = await createTestDatabaseUrl('sqlite');

    // Before: the namespace is acme's, and its tenant admin may name it.
    gw = await start(`acme=${ACME_NS}|${MOVED_NS}`);
    const api = new McpSyncApi(gw);
    const acmeAdmin = await createKey(gw, 'acme', 'admin');
    const register = async (key: { Authorization: string }, name: keyof typeof UPSTREAM) => {
      const body = { name, kind: 'NACOS', serviceName: UPSTREAM[name], groupName: GROUP, namespaceId: MOVED_NS };
      const res = await gw!.http
        .post('/api/v1/admin/mcp-services')
        .set(key)
        .send({ ...body, ...(key === gw!.admin ? { tenantId: 'acme' } : {}) })
        .expect(201);
      expect(res.body).toMatchObject({ tenantId: 'acme', namespaceId: MOVED_NS, health: 'UP' });
      ids[name] = res.body.id;
    };
    await register(acmeAdmin, 'chosen');
    await register(gw.admin, 'assigned');
    await register(acmeAdmin, 'legacy');
    // A row from before the gateway recorded who chose its namespace.
    await gw.app.get(DataSource).query('UPDATE mcp_service SET namespace_chosen_by = NULL WHERE id = ?', [ids.legacy]);
    agentId = await api.createAgent('acme', 'lookup-bot');
    const tools = Object.values(await Promise.all(Object.values(ids).map((id) => api.toolsOf(id)))).flatMap((t) =>
      Object.values(t).map((row) => row.id),
    );
    await api.bind(agentId, tools);
    const runtime = await createKey(gw, 'acme', 'runtime');
    for (const name of Object.keys(UPSTREAM))
      expect(await api.execute(runtime, agentId, `${name}_lookup`)).toMatchObject({ status: 'COMPLETED' });
    await gw.close();
    lookupsBeforeMove = chosenLookups();

    // After: the platform moved the namespace to globex and restarted the gateway.
    gw = await start(`acme=${ACME_NS};globex=${MOVED_NS}`);
  });

  afterAll(async () => {
    await gw?.close();
    await server.stop();
    await nacos.stop();
    await db?.drop();
  });

  it('reports it DOWN from start-up, its tools hidden and never called, saying why and what the platform admin does', async () => {
    const api = new McpSyncApi(gw!);
    const service = await api.service(ids.chosen);
    expect(service).toMatchObject({ health: 'DOWN', namespaceId: MOVED_NS });
    expect(service.healthReason).toMatch(
      new RegExp(`namespace ${MOVED_NS}.*no longer.*acme.*NACOS_TENANT_NAMESPACES.*register`, 's'),
    );
    expect(service).not.toHaveProperty('namespaceChosenBy');

    const runtime = await createKey(gw!, 'acme', 'runtime');
    const specs = await api.specs(runtime, agentId);
    expect(specs.layers.chosen_lookup).toBe('DEPENDENCIES');
    expect(specs.reasons.chosen_lookup).toContain('NACOS_TENANT_NAMESPACES');
    expect(specs.names.filter((n) => n.endsWith('_lookup'))).toEqual(['assigned_lookup', 'legacy_lookup']);
    const callsBefore = server.calls.length;
    const refused = await api.execute(runtime, agentId, 'chosen_lookup');
    expect(refused).toMatchObject({ status: 'FAILED', isError: true, attempts: 0, errorClass: 'NOT_VISIBLE' });
    expect(refused.content).toContain('NACOS_TENANT_NAMESPACES');
    expect(server.calls.length).toBe(callsBefore);

    // The platform's assignment stays, and so does a namespace of unknown origin (registered before the upgrade).
    expect(await api.execute(runtime, agentId, 'assigned_lookup')).toMatchObject({
      status: 'COMPLETED',
      content: 'moved:lookup:{}',
    });
    expect(await api.execute(runtime, agentId, 'legacy_lookup')).toMatchObject({ status: 'COMPLETED' });
    expect(chosenLookups()).toBe(lookupsBeforeMove);
  });

  it('fails its syncs and health checks for the same reason, reading nothing there', async () => {
    const api = new McpSyncApi(gw!);

    const sync = await gw!.http.post(`/api/v1/admin/mcp-services/${ids.chosen}/sync`).set(gw!.admin).expect(502);
    expect(sync.body.error.code).toBe('MCP_SERVICE_UNREACHABLE');
    expect(sync.body.error.message).toMatch(
      new RegExp(`namespace ${MOVED_NS}.*no longer.*acme.*NACOS_TENANT_NAMESPACES.*register`, 's'),
    );
    const round = await gw!.app.get(McpServiceRepairService).repairAll();
    expect(round.down).toEqual(['chosen']);
    expect((await api.service(ids.chosen)).health).toBe('DOWN');
    expect((await api.sync(ids.assigned)).error).toBeUndefined();

    // Nothing of globex's namespace was read for acme's service since the move: no lookup, no subscription.
    expect(chosenLookups()).toBe(lookupsBeforeMove);
  });

  it('comes back when the platform admin registers it again with the platform key: its tools and bindings return', async () => {
    const api = new McpSyncApi(gw!);
    const lookup = (await api.toolsOf(ids.chosen)).chosen_lookup;
    await gw!.http.delete(`/api/v1/admin/mcp-services/${ids.chosen}`).set(gw!.admin).expect(200);
    const again = await api.createService({
      name: 'chosen',
      kind: 'NACOS',
      serviceName: UPSTREAM.chosen,
      groupName: GROUP,
      namespaceId: MOVED_NS,
      tenantId: 'acme',
    });
    expect(again).toMatchObject({ health: 'UP', lastSync: { added: 1, collisions: [] } });
    expect((await api.toolsOf(again.id)).chosen_lookup).toMatchObject({ id: lookup.id, status: 'ACTIVE' });
    const runtime = await createKey(gw!, 'acme', 'runtime');
    expect(await api.execute(runtime, agentId, 'chosen_lookup')).toMatchObject({
      status: 'COMPLETED',
      content: 'moved:lookup:{}',
    });
  });
});
