import type { TestGateway } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, describeEachDialect, type TestDatabase } from '@test/support/test-database';
import { startMcpSyncGateway } from './support/mcp-sync-gateway';
import { CatalogMcpServer, catalogTool } from './support/catalog-mcp.server';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';

describeEachDialect('MCP sync: the report of a large listing is stored whole (LONGTEXT on MySQL)', (dialect) => {
  // 400 tools named with 300 characters (too long to register) and 200 good ones: the report names them all.
  const rejected = Array.from({ length: 400 }, (_, i) => catalogTool(`t${i}_`.padEnd(300, 'x')));
  const good = Array.from({ length: 200 }, (_, i) => catalogTool(`good_tool_with_a_rather_long_descriptive_name_${i}`));
  const server = new CatalogMcpServer([...rejected, ...good]);
  let db: TestDatabase;
  let gw: TestGateway;

  beforeAll(async () => {
    await server.start();
    db = await createTestDatabaseUrl(dialect);
    gw = await startMcpSyncGateway(db.url);
  });

  afterAll(async () => {
    await gw?.close();
    await server.stop();
    await db?.drop();
  });

  it('records a service whose server answers with a 100 KB error page as DOWN, with a bounded reason', async () => {
    const broken = await new RecordingHttpServer().start();
    broken.handler = (_req, res) => {
      res.statusCode = 500;
      res.setHeader('content-type', 'text/plain');
      res.end('stack trace line\n'.repeat(6_000));
    };
    try {
      const created = (
        await gw.http
          .post('/api/v1/admin/mcp-services')
          .set(gw.admin)
          .send({ name: 'broken', kind: 'STATIC', url: broken.url('/mcp'), tenantId: 'acme', toolPrefix: 'broken_' })
          .expect(201)
      ).body;
      const read = (await gw.http.get(`/api/v1/admin/mcp-services/${created.id}`).set(gw.admin).expect(200)).body;
      expect(read.health).toBe('DOWN');
      expect(read.healthReason).toMatch(/stack trace line/);
      expect(read.healthReason.length).toBeLessThanOrEqual(2_100);
    } finally {
      await broken.stop();
    }
  });

  it('registers the good tools and keeps a report listing every tool, rejected names cut at 128 characters', async () => {
    const created = (
      await gw.http
        .post('/api/v1/admin/mcp-services')
        .set(gw.admin)
        .send({ name: 'wide', kind: 'STATIC', url: server.url, tenantId: 'acme', toolPrefix: '' })
        .expect(201)
    ).body;
    const read = (await gw.http.get(`/api/v1/admin/mcp-services/${created.id}`).set(gw.admin).expect(200)).body;
    expect(read.health).toBe('UP');
    expect(read.lastSync).toMatchObject({ added: 200 });
    expect(read.lastSync.tools.added).toHaveLength(200);
    expect(read.lastSync.rejected).toHaveLength(400);
    expect(read.lastSync.rejected[0]).toEqual({
      remoteName: `${'t0_'.padEnd(128, 'x')}… (300 characters)`,
      problems: [expect.stringMatching(/longer than 128 characters/)],
    });
  });
});
