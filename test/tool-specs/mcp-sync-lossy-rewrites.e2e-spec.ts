import type { TestGateway } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, type TestDatabase } from '@test/support/test-database';
import { startMcpSyncGateway } from '@test/mcp-services/support/mcp-sync-gateway';
import { CatalogMcpServer, catalogTool } from '@test/mcp-services/support/catalog-mcp.server';
import { McpSyncApi } from '@test/mcp-services/support/mcp-sync-fixtures';

/** MCP sync reports, per service, the tools whose schemas a model format rewrites with a loss (issue 11). */
describe('MCP sync: the tools that needed lossy schema rewriting', () => {
  let db: TestDatabase;
  let gw: TestGateway;
  let api: McpSyncApi;
  let server: CatalogMcpServer;

  beforeAll(async () => {
    server = await new CatalogMcpServer([
      catalogTool('plain', { inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } }),
      catalogTool('either', {
        inputSchema: {
          type: 'object',
          oneOf: [
            { properties: { a: { type: 'string' } }, required: ['a'] },
            { properties: { b: { type: 'string' } }, required: ['b'] },
          ],
        },
      }),
      catalogTool('labels', {
        inputSchema: {
          type: 'object',
          properties: { labels: { type: 'object', additionalProperties: { type: 'string' } } },
        },
      }),
    ]).start();
    db = await createTestDatabaseUrl('sqlite');
    gw = await startMcpSyncGateway(db.url);
    api = new McpSyncApi(gw);
  });
  afterAll(async () => {
    await gw?.close();
    await server?.stop();
    await db?.drop();
  });

  it('names each such tool with what each format rewrote, and leaves out the tools every format takes as they are', async () => {
    const service = await api.createService({ name: 'catalog', kind: 'STATIC', url: server.url, tenantId: 'acme' });
    const lossy = (service.lastSync as unknown as { lossyRewrites: Array<{ remoteName: string; rewrites: string[] }> })
      .lossyRewrites;
    expect(lossy.map((r) => r.remoteName).sort()).toEqual(['either', 'labels']);
    const byName = Object.fromEntries(lossy.map((r) => [r.remoteName, r.rewrites.join(' | ')]));
    expect(byName.either).toMatch(/MODEL_OPENAI: .*root oneOf/);
    expect(byName.labels).toMatch(/MODEL_OPENAI_STRICT: .*map/);
    expect(byName.labels).toMatch(/MODEL_GEMINI: .*JSON text/);

    // The synced tools answer their checklist like any other source, with the same findings.
    const tools = await api.toolsOf(service.id);
    const checklist = (
      await gw.http.get(`/api/v1/admin/tools/${tools.catalog_either.id}/checklist`).set(gw.admin).expect(200)
    ).body;
    expect(checklist.items.find((i: { check: string }) => i.check === 'MODEL_OPENAI')).toMatchObject({
      status: 'WARN',
      message: expect.stringContaining('root oneOf'),
    });
    expect(checklist.items.find((i: { check: string }) => i.check === 'TENANT_SCOPE').message).toContain(
      'params._meta',
    );
  });
});
