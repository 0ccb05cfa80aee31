import { McpServiceRepairService } from '@app/modules/mcp-services/mcp-service-repair.service';
import { NacosInstanceCache } from '@app/modules/mcp-services/nacos/nacos-instance.cache';
import { NacosTestServer } from '@test/support/nacos/nacos-test-server';
import type { TestGateway } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, type TestDatabase } from '@test/support/test-database';
import { startMcpSyncGateway } from './support/mcp-sync-gateway';
import { CatalogMcpServer, catalogTool } from './support/catalog-mcp.server';
import { McpSyncApi } from './support/mcp-sync-fixtures';

const NS = 'mcp-memory';
const GROUP = 'MCP_GROUP';

/** The instance lists an instance keeps of the Nacos services of MCP service records, as long as such a record does. */
describe('NacosInstanceCache holds the instances of Nacos services some MCP service record names', () => {
  const nacos = new NacosTestServer({ pushDelayMs: 50 });
  const server = new CatalogMcpServer([catalogTool('ping', { annotations: { readOnlyHint: true } })]);
  let db: TestDatabase;
  let gw: TestGateway;
  let other: TestGateway;
  let api: McpSyncApi;
  let instances: NacosInstanceCache;
  const keyOf = (service: string) => `${NS}/${GROUP}@${service}`;
  const upstream = (service: string) => ({ kind: 'NACOS', serviceName: service, groupName: GROUP, namespaceId: NS });

  beforeAll(async () => {
    const { addr } = await nacos.start();
    await server.start();
    db = await createTestDatabaseUrl('sqlite');
    gw = await startMcpSyncGateway(db.url, { NACOS_SERVER_ADDR: addr });
    other = await startMcpSyncGateway(db.url, { NACOS_SERVER_ADDR: addr, GATEWAY_INSTANCE_ID: 'gw-other' });
    api = new McpSyncApi(gw);
    instances = gw.app.get(NacosInstanceCache);
  });

  afterAll(async () => {
    await other?.close();
    await gw?.close();
    await server.stop();
    await nacos.stop();
    await db?.drop();
  });

  it('forgets the instances of each deleted service', async () => {
    const keys: string[] = [];
    for (let i = 0; i < 5; i++) {
      const name = `short-lived-${i}`;
      nacos.registerInstance(NS, GROUP, name, { ip: '127.0.0.1', port: server.port });
      const service = await api.createService({ name, ...upstream(name) });
      expect(instances.get(keyOf(name))).toHaveLength(1);
      await gw.http.delete(`/api/v1/admin/mcp-services/${service.id}`).set(gw.admin).expect(200);
      keys.push(keyOf(name));
    }
    expect(keys.map((key) => instances.get(key))).toEqual(keys.map(() => undefined));
  });

  it('keeps the instances of a Nacos service another record still names', async () => {
    nacos.registerInstance(NS, GROUP, 'shared', { ip: '127.0.0.1', port: server.port });
    const first = await api.createService({ name: 'shared-first', ...upstream('shared') });
    await api.createService({ name: 'shared-second', ...upstream('shared') });
    await gw.http.delete(`/api/v1/admin/mcp-services/${first.id}`).set(gw.admin).expect(200);
    expect(instances.get(keyOf('shared'))).toHaveLength(1);
  });

  it('forgets, at its next repair round, the instances of a service another instance deleted', async () => {
    for (const name of ['kept-here', 'deleted-there'])
      nacos.registerInstance(NS, GROUP, name, { ip: '127.0.0.1', port: server.port });
    await api.createService({ name: 'kept-here', ...upstream('kept-here') });
    const gone = await api.createService({ name: 'deleted-there', ...upstream('deleted-there') });
    expect(instances.get(keyOf('deleted-there'))).toHaveLength(1);
    await other.http.delete(`/api/v1/admin/mcp-services/${gone.id}`).set(other.admin).expect(200);

    await gw.app.get(McpServiceRepairService).repairAll();
    expect(instances.get(keyOf('deleted-there'))).toBeUndefined();
    expect(instances.get(keyOf('kept-here'))).toHaveLength(1);
  });
});
