import { createKey, toolBody, type TestGateway } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, describeEachDialect, type TestDatabase } from '@test/support/test-database';
import { startMcpSyncGateway } from './support/mcp-sync-gateway';
import { CatalogMcpServer, catalogTool } from './support/catalog-mcp.server';
import { McpSyncApi } from './support/mcp-sync-fixtures';
import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';

const V2_TOOL_NAME = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;
const TRICKY = ['get.user', 'get_user', 'Search', 'search', '1password', '-dash', 'plain'];

describeEachDialect('MCP sync: remote names that clash, differ in case or start badly (issue 9 #7)', (dialect) => {
  const server = new CatalogMcpServer(TRICKY.map((name) => catalogTool(name)));
  const reversed = new CatalogMcpServer([...TRICKY].reverse().map((name) => catalogTool(name)));
  let db: TestDatabase;
  let gw: TestGateway;
  let api: McpSyncApi;

  beforeAll(async () => {
    await Promise.all([server.start(), reversed.start()]);
    db = await createTestDatabaseUrl(dialect);
    gw = await startMcpSyncGateway(db.url);
    api = new McpSyncApi(gw);
  });

  afterAll(async () => {
    await gw?.close();
    await Promise.all([server.stop(), reversed.stop()]);
    await db?.drop();
  });

  it('registers every listed tool under a distinct valid name (case-insensitively), deterministic and independent of listing order', async () => {
    const service = await api.createService({
      name: 'tricky',
      kind: 'STATIC',
      url: server.url,
      tenantId: 'acme',
      toolPrefix: '',
    });
    expect(service.lastSync).toMatchObject({ added: TRICKY.length, collisions: [], rejected: [] });
    const tools = Object.values(await api.toolsOf(service.id));
    expect(tools.map((t) => t.remoteName).sort()).toEqual([...TRICKY].sort());
    for (const t of tools) expect(t.name).toMatch(V2_TOOL_NAME);
    expect(new Set(tools.map((t) => t.name.toLowerCase())).size).toBe(TRICKY.length);
    const byRemote = Object.fromEntries(tools.map((t) => [t.remoteName, t.name]));
    expect(byRemote).toMatchObject({
      get_user: 'get_user',
      plain: 'plain',
      Search: 'Search',
      search: expect.stringMatching(/^search_[0-9a-f]{8}$/),
    });
    expect(byRemote['1password']).toMatch(/^_1password_[0-9a-f]{8}$/);
    expect(byRemote['-dash']).toMatch(/^_-dash_[0-9a-f]{8}$/);

    // The same tools listed in the other order by another service of another tenant get the same names.
    const other = await api.createService({
      name: 'tricky',
      kind: 'STATIC',
      url: reversed.url,
      tenantId: 'globex',
      toolPrefix: '',
    });
    expect(other.lastSync).toMatchObject({ added: TRICKY.length, collisions: [], rejected: [] });
    const again = Object.fromEntries(Object.values(await api.toolsOf(other.id)).map((t) => [t.remoteName, t.name]));
    expect(again).toEqual(byRemote);

    // And a second sync keeps every name.
    expect(await api.sync(service.id)).toMatchObject({
      added: 0,
      updated: 0,
      disabled: 0,
      unchanged: TRICKY.length,
      collisions: [],
      rejected: [],
    });
  });

  it('reports a name another source holds in another case as a collision, and still registers the rest', async () => {
    await gw.http
      .post('/api/v1/admin/tools')
      .set(gw.admin)
      .send(toolBody({ name: 'Cased_Plain', tenantId: 'initech' }))
      .expect(201);
    const service = await api.createService({
      name: 'cased',
      kind: 'STATIC',
      url: server.url,
      tenantId: 'initech',
      toolPrefix: 'cased_',
    });
    expect(service.lastSync).toMatchObject({
      added: TRICKY.length - 1,
      collisions: [expect.objectContaining({ remoteName: 'plain', name: 'cased_plain', existingSource: 'DB' })],
    });
  });

  it('never fails a whole sync for a tool too large to store: that tool is reported (on every database alike), the rest register', async () => {
    // 25,000 CJK characters: under 60,000 characters, but 75 KB of UTF-8 (a MySQL TEXT holds 64 KB): the limit counts bytes.
    const huge = catalogTool('huge', {
      inputSchema: { type: 'object', properties: { q: { type: 'string', description: '漢'.repeat(25_000) } } },
    });
    const mixed = await new CatalogMcpServer([catalogTool('small_one'), huge, catalogTool('small_two')]).start();
    try {
      const created = (
        await gw.http
          .post('/api/v1/admin/mcp-services')
          .set(gw.admin)
          .send({ name: 'mixed', kind: 'STATIC', url: mixed.url, tenantId: 'acme', toolPrefix: 'mixed_' })
          .expect(201)
      ).body;
      const tools = await api.toolsOf(created.id);
      expect(Object.keys(tools).sort()).toEqual(['mixed_small_one', 'mixed_small_two']);
      expect(created.lastSync).toMatchObject({
        added: 2,
        rejected: [
          { remoteName: 'huge', problems: [expect.stringMatching(/larger than 60000 bytes as JSON in UTF-8/)] },
        ],
      });
    } finally {
      await mixed.stop();
    }
  });

  it("removes NUL, control and bidi-override characters from a remote tool's description instead of failing the sync (issue 9 #11)", async () => {
    const sneaky = await new CatalogMcpServer([
      catalogTool('sneaky', {
        description: 'Reads a file.\u0000\u202e Deletes everything.\u202c\n\tSafe\u2066 part\u0007.',
      }),
      catalogTool('blank', { description: '\u0000\u202e', title: 'Blank\u0085 title' }),
    ]).start();
    try {
      const created = await api.createService({
        name: 'sneaky',
        kind: 'STATIC',
        url: sneaky.url,
        tenantId: 'acme',
        toolPrefix: 'sneaky_',
      });
      expect(created.lastSync).toMatchObject({ added: 2, rejected: [] });
      const tools = await api.toolsOf(created.id);
      expect(tools.sneaky_sneaky.description).toBe('Reads a file. Deletes everything.\n\tSafe part.');
      expect(tools.sneaky_blank.description).toBe('Blank title');
    } finally {
      await sneaky.stop();
    }
  });

  it('logs a tool row the database refused by its error code only: a driver message may quote the definition', async () => {
    // The trigger's message quotes the row, as MariaDB's "Data too long" or "Incorrect string value" messages do.
    const quoted = 'refused: the description says sk-live-0123456789abcdef';
    const ds = gw.app.get(DataSource);
    await ds.query(
      dialect === 'sqlite'
        ? `CREATE TRIGGER refuse_quoted_tools BEFORE INSERT ON ai_tool WHEN NEW.name = 'quoting_refused'
             BEGIN SELECT RAISE(ABORT, '${quoted}'); END`
        : `CREATE TRIGGER refuse_quoted_tools BEFORE INSERT ON ai_tool FOR EACH ROW
             BEGIN IF NEW.name = 'quoting_refused' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '${quoted}'; END IF; END`,
    );
    const server = await new CatalogMcpServer([catalogTool('refused'), catalogTool('kept')]).start();
    const warns = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const created = await api.createService({
        name: 'quoting',
        kind: 'STATIC',
        url: server.url,
        tenantId: 'acme',
        toolPrefix: 'quoting_',
      });
      expect(Object.keys(await api.toolsOf(created.id))).toEqual(['quoting_kept']);
      const lines = warns.mock.calls.map((c) => String(c[0])).filter((l) => l.includes('"refused" was left out'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/the database refused it: \S*(SQLITE_CONSTRAINT|ER_SIGNAL_EXCEPTION|QueryFailedError)/);
      expect(lines[0]).not.toContain('sk-live');
    } finally {
      warns.mockRestore();
      await server.stop();
      await ds.query('DROP TRIGGER refuse_quoted_tools');
    }
  });

  it('calls a renamed tool by its registry name and sends the remote name', async () => {
    const runtime = await createKey(gw, 'acme', 'runtime');
    const service = (
      await gw.http.get('/api/v1/admin/mcp-services?tenantId=acme').set(gw.admin).expect(200)
    ).body.items.find((s: { name: string }) => s.name === 'tricky');
    const tools = Object.values(await api.toolsOf(service.id));
    const lower = tools.find((t) => t.remoteName === 'search')!;
    const agentId = await api.createAgent('acme', 'names-agent');
    await api.bind(agentId, [lower.id]);
    const res = await api.execute(runtime, agentId, lower.name, { q: 'x' });
    expect(res).toMatchObject({ status: 'COMPLETED', isError: false });
    expect(server.calls.at(-1)).toMatchObject({ tool: 'search' });
  });
});
