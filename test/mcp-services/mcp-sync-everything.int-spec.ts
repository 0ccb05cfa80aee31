import { createKey, type TestGateway } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, type TestDatabase } from '@test/support/test-database';
import { EverythingServerProcess } from '@test/executors/support/everything-server.process';
import { startMcpSyncGateway } from './support/mcp-sync-gateway';
import { McpSyncApi } from './support/mcp-sync-fixtures';

describe('NacosMcpSync against @modelcontextprotocol/server-everything (a server no one here wrote)', () => {
  const everything = new EverythingServerProcess('streamableHttp');
  let db: TestDatabase;
  let gw: TestGateway;
  let api: McpSyncApi;

  beforeAll(async () => {
    await everything.start();
    db = await createTestDatabaseUrl('sqlite');
    gw = await startMcpSyncGateway(db.url);
    api = new McpSyncApi(gw);
  });

  afterAll(async () => {
    await gw?.close();
    await everything.stop();
    await db?.drop();
  });

  it('syncs its whole tool list and runs a synced tool once bound', async () => {
    const service = await api.createService({
      name: 'everything',
      kind: 'STATIC',
      url: everything.url,
      tenantId: 'acme',
    });
    expect(service.health).toBe('UP');
    expect(service.lastSync!.rejected).toEqual([]);
    const tools = await api.toolsOf(service.id);
    expect(Object.keys(tools)).toEqual(expect.arrayContaining(['everything_echo', 'everything_get-sum']));
    expect(Object.keys(tools).length).toBe(service.lastSync!.added);
    for (const tool of Object.values(tools)) {
      expect(tool).toMatchObject({
        serviceType: 'MCP_REMOTE',
        endpoint: everything.url,
        source: 'MCP',
        status: 'ACTIVE',
      });
      expect(tool.name).toMatch(/^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/);
    }

    const runtime = await createKey(gw, 'acme', 'runtime');
    const agentId = await api.createAgent('acme', 'everything-bot');
    await api.bind(agentId, [tools.everything_echo.id, tools['everything_get-sum'].id]);
    await expect(api.execute(runtime, agentId, 'everything_echo', { message: 'hello' })).resolves.toMatchObject({
      status: 'COMPLETED',
      content: expect.stringContaining('hello'),
    });
    await expect(api.execute(runtime, agentId, 'everything_get-sum', { a: 2, b: 3 })).resolves.toMatchObject({
      status: 'COMPLETED',
      content: expect.stringContaining('5'),
    });

    // Nothing changed upstream: a second sync changes nothing.
    await expect(api.sync(service.id)).resolves.toMatchObject({
      added: 0,
      updated: 0,
      disabled: 0,
      unchanged: service.lastSync!.added,
    });
  });
});
