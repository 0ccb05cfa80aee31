import type { TestGateway } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, type TestDatabase } from '@test/support/test-database';
import { startMcpSyncGateway } from '@test/mcp-services/support/mcp-sync-gateway';
import { CatalogMcpServer, catalogTool } from '@test/mcp-services/support/catalog-mcp.server';
import { McpSyncApi } from '@test/mcp-services/support/mcp-sync-fixtures';

/**
 * A tool its source disabled (its MCP service deleted, or gone from its server) has no valid version: PATCH status
 * ACTIVE revives a RETIRED tool, never a DISABLED one (it would be offered to models and fail on every call).
 */
describe('PATCH status ACTIVE of a tool its source disabled', () => {
  const server = new CatalogMcpServer([catalogTool('lookup_stock')]);
  let db: TestDatabase;
  let gw: TestGateway;
  let api: McpSyncApi;

  beforeAll(async () => {
    await server.start();
    db = await createTestDatabaseUrl('sqlite');
    gw = await startMcpSyncGateway(db.url);
    api = new McpSyncApi(gw);
  });
  afterAll(async () => {
    await gw?.close();
    await server.stop();
    await db?.drop();
  });

  it('is refused with 409 saying the source brings it back, and the tool stays DISABLED', async () => {
    const service = await api.createService({ name: 'stock', kind: 'STATIC', url: server.url, tenantId: 'acme' });
    const [tool] = Object.values(await api.toolsOf(service.id));
    await gw.http.delete(`/api/v1/admin/mcp-services/${service.id}`).set(gw.admin).expect(200);
    const disabled = (await gw.http.get(`/api/v1/admin/tools/${tool.id}`).set(gw.admin).expect(200)).body;
    expect(disabled.status).toBe('DISABLED');

    const res = await gw.http.patch(`/api/v1/admin/tools/${tool.id}`).set(gw.admin).send({ status: 'ACTIVE' });
    expect([res.status, res.body.error?.code]).toEqual([409, 'TOOL_NOT_EDITABLE']);
    expect(res.body.error.message).toContain('DISABLED');
    const after = (await gw.http.get(`/api/v1/admin/tools/${tool.id}`).set(gw.admin).expect(200)).body;
    expect(after).toEqual(disabled);
    // Retiring it stays possible.
    await gw.http.delete(`/api/v1/admin/tools/${tool.id}`).set(gw.admin).expect(200);
  });
});
