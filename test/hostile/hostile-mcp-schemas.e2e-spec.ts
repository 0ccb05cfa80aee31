import type { TestGateway } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, describeEachDialect, type TestDatabase } from '@test/support/test-database';
import { startMcpSyncGateway } from '@test/mcp-services/support/mcp-sync-gateway';
import { CatalogMcpServer, catalogTool } from '@test/mcp-services/support/catalog-mcp.server';
import { McpSyncApi } from '@test/mcp-services/support/mcp-sync-fixtures';

/**
 * Schemas from an MCP server are as hostile as an admin's: a pattern RE2 cannot run and a `$schema` ajv cannot
 * check reject that one tool with the reason; the rest of the listing registers (the sync never fails whole),
 * and a catastrophic-backtracking pattern registers but is matched in linear time. A tool off the MCP Tool shape (no
 * inputSchema, a root that is no object, `required` that is no array) is rejected alone too, not the whole listing.
 */
describeEachDialect('MCP sync of hostile schemas', (dialect) => {
  const server = new CatalogMcpServer([
    catalogTool('plain'),
    catalogTool('redos', {
      inputSchema: { type: 'object', properties: { q: { type: 'string', pattern: '^(a+)+$' } } },
    }),
    catalogTool('lookahead', {
      inputSchema: { type: 'object', properties: { q: { type: 'string', pattern: '^(?!admin).+$' } } },
    }),
    catalogTool('draft04', {
      inputSchema: { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object', properties: {} },
    }),
  ]);
  let db: TestDatabase;
  let gw: TestGateway;
  let api: McpSyncApi;

  beforeAll(async () => {
    await server.start();
    db = await createTestDatabaseUrl(dialect);
    gw = await startMcpSyncGateway(db.url);
    api = new McpSyncApi(gw);
  });
  afterAll(async () => {
    await gw?.close();
    await server.stop();
    await db?.drop();
  });

  it('rejects only the tools whose schema cannot be used, naming why, and registers the rest', async () => {
    const created = await api.createService({ name: 'hostile', kind: 'STATIC', url: server.url });
    expect(created.lastSync).toMatchObject({ added: 2 });
    expect(created.lastSync!.error).toBeUndefined();
    const rejected = Object.fromEntries(created.lastSync!.rejected.map((r) => [r.remoteName, r.problems.join(' ')]));
    expect(Object.keys(rejected).sort()).toEqual(['draft04', 'lookahead']);
    expect(rejected.lookahead).toMatch(/pattern "\^\(\?!admin\)\.\+\$" is not supported .*lookahead/);
    expect(rejected.draft04).toContain('is not a supported dialect');
    expect(Object.keys(await api.toolsOf(created.id)).sort()).toEqual(['hostile_plain', 'hostile_redos']);
  });

  it('a listed tool whose schema turns 2,000 levels deep is disabled with the reason; the sync still answers', async () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 2000; i++) deep = { type: 'object', properties: { a: deep } };
    await server.setTools(
      [catalogTool('plain', { inputSchema: { type: 'object', properties: { a: deep } } }), catalogTool('redos')],
      { notify: false },
    );
    const [service] = (await gw.http.get('/api/v1/admin/mcp-services').set(gw.admin).expect(200)).body.items;
    const report = await api.sync(service.id);
    expect(report.error).toBeUndefined();
    expect(report.rejected).toEqual([
      { remoteName: 'plain', problems: [expect.stringContaining('nested deeper than 64 levels')] },
    ]);
    expect((await api.toolsOf(service.id)).hostile_plain.status).toBe('DISABLED');
  });

  it('a listed tool off the MCP Tool shape is rejected alone; the service stays up and its other tools sync', async () => {
    await server.setTools(
      [
        catalogTool('plain'),
        catalogTool('redos'),
        catalogTool('stringroot', { inputSchema: { type: 'string' } as never }),
        catalogTool('requiredtext', {
          inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: 'q' } as never,
        }),
        { name: 'noschema', description: 'A tool listed without an inputSchema.' } as never,
      ],
      { notify: false },
    );
    const service = await api.createService({ name: 'shapes', kind: 'STATIC', url: server.url });
    const report = service.lastSync!;
    expect(report.error).toBeUndefined();
    const rejected = Object.fromEntries(report.rejected.map((r) => [r.remoteName, r.problems.join(' ')]));
    expect(Object.keys(rejected).sort()).toEqual(['noschema', 'requiredtext', 'stringroot']);
    expect(rejected.stringroot).toContain('must have "type": "object" at the root');
    expect(rejected.requiredtext).toContain('required');
    expect(rejected.noschema).toContain('must be a JSON Schema object');
    expect(report.tools.added.sort()).toEqual(['shapes_plain', 'shapes_redos']);
    const tools = await api.toolsOf(service.id);
    expect(Object.keys(tools).sort()).toEqual(['shapes_plain', 'shapes_redos']);
    expect(await api.service(service.id)).toMatchObject({ health: 'UP', healthReason: null });
  });
});
