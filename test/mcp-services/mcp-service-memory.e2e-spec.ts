import { McpServiceDirectory } from '@app/modules/mcp-services/mcp-service.directory';
import { McpServiceRepairService } from '@app/modules/mcp-services/mcp-service-repair.service';
import { McpServiceHealthRegistry } from '@app/modules/tool-registry/mcp-service-health.registry';
import type { TestGateway } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, type TestDatabase } from '@test/support/test-database';
import { startMcpSyncGateway } from './support/mcp-sync-gateway';
import { CatalogMcpServer, catalogTool } from './support/catalog-mcp.server';
import { McpSyncApi } from './support/mcp-sync-fixtures';

/**
 * What an instance keeps in memory of each MCP service (its health for the DEPENDENCIES layer, where it is for calls)
 * lives as long as the service does: a gateway on which admins register and delete services for weeks must not keep
 * one entry per service it ever saw.
 */
describe('An MCP service deleted on any instance leaves no entry in memory', () => {
  const server = new CatalogMcpServer([catalogTool('ping', { annotations: { readOnlyHint: true } })]);
  let db: TestDatabase;
  let gw: TestGateway;
  let other: TestGateway;
  let api: McpSyncApi;
  let health: McpServiceHealthRegistry;

  beforeAll(async () => {
    await server.start();
    db = await createTestDatabaseUrl('sqlite');
    gw = await startMcpSyncGateway(db.url);
    other = await startMcpSyncGateway(db.url, { GATEWAY_INSTANCE_ID: 'gw-other' });
    api = new McpSyncApi(gw);
    health = gw.app.get(McpServiceHealthRegistry);
  });

  afterAll(async () => {
    await other?.close();
    await gw?.close();
    await server.stop();
    await db?.drop();
  });

  it('forgets the health of each service deleted on this instance', async () => {
    const deleted: string[] = [];
    for (let i = 0; i < 5; i++) {
      const service = await api.createService({ name: `short-lived-${i}`, kind: 'STATIC', url: server.url });
      expect(health.statusOf(service.id)).toMatchObject({ healthy: true });
      await gw.http.delete(`/api/v1/admin/mcp-services/${service.id}`).set(gw.admin).expect(200);
      deleted.push(service.id);
    }
    expect(deleted.map((id) => health.statusOf(id))).toEqual(deleted.map(() => undefined));
  });

  it('forgets, at its next repair round, where a service another instance deleted was', async () => {
    const directory = gw.app.get(McpServiceDirectory);
    const kept = await api.createService({ name: 'located', kind: 'STATIC', url: server.url });
    const gone = await api.createService({ name: 'located-then-deleted', kind: 'STATIC', url: server.url });
    // As a call of one of its tools reads it.
    await expect(directory.get(gone.id)).resolves.toMatchObject({ id: gone.id });
    await expect(directory.get(kept.id)).resolves.toMatchObject({ id: kept.id });
    await other.http.delete(`/api/v1/admin/mcp-services/${gone.id}`).set(other.admin).expect(200);

    await gw.app.get(McpServiceRepairService).repairAll();
    expect(directory['byId'].has(gone.id)).toBe(false);
    expect(directory['byId'].has(kept.id)).toBe(true);
  });

  it('forgets, at its next repair round, the health of a service another instance deleted', async () => {
    const kept = await api.createService({ name: 'kept', kind: 'STATIC', url: server.url });
    const gone = await api.createService({ name: 'deleted-elsewhere', kind: 'STATIC', url: server.url });
    expect(health.statusOf(gone.id)).toMatchObject({ healthy: true });
    await other.http.delete(`/api/v1/admin/mcp-services/${gone.id}`).set(other.admin).expect(200);

    await gw.app.get(McpServiceRepairService).repairAll();
    expect(health.statusOf(gone.id)).toBeUndefined();
    expect(health.statusOf(kept.id)).toMatchObject({ healthy: true });
  });
});
