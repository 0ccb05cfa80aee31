import { createTestDatabaseUrl, TestDatabase } from '@test/support/test-database';
import { createKey, startTestGateway, TestGateway, toolBody } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import { createKnowledgeBase } from '@test/knowledge-bases/support/knowledge-fixtures';

/**
 * OUTBOUND_PLATFORM_ONLY_HOSTS: a target the platform allows (OUTBOUND_ALLOW_HOSTS) for its own tools stays out of
 * reach of tenants' tools, MCP services and model providers, over the real HTTP path (loopback servers).
 */
describe('targets reserved for the platform (OUTBOUND_PLATFORM_ONLY_HOSTS)', () => {
  let db: TestDatabase;
  let gw: TestGateway;
  let remote: RecordingHttpServer;
  let runtime: { Authorization: string };
  let agentId: string;

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    db = await createTestDatabaseUrl('sqlite');
    gw = await startTestGateway(db.url, {
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      OUTBOUND_PLATFORM_ONLY_HOSTS: '127.0.0.0/8',
      TOOL_MAX_ATTEMPTS: '1',
    });
    runtime = await createKey(gw, 'acme', 'runtime');
    const tool = async (name: string, tenantId: string | null) =>
      (
        await gw.http
          .post('/api/v1/admin/tools')
          .set(gw.admin)
          .send(toolBody({ name, tenantId, endpoint: remote.url(`/${name}`) }))
          .expect(201)
      ).body.id as string;
    const ids = [await tool('platform_lookup', null), await tool('tenant_lookup', 'acme')];
    agentId = (
      await gw.http
        .post('/api/v1/admin/agents')
        .set(gw.admin)
        .send({ name: 'reserved-bot', tenantId: 'acme' })
        .expect(201)
    ).body.id;
    await gw.http.put(`/api/v1/admin/agents/${agentId}/tools`).set(gw.admin).send({ toolIds: ids }).expect(200);
  });

  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
    await db?.drop();
  });

  const execute = (name: string, toolCallId: string) =>
    gw.http
      .post(`/api/v1/tools/${name}/execute`)
      .set(runtime)
      .send({ agentId, userId: 'u1', permissions: [], toolCallId, arguments: { q: 'x' } })
      .expect(200);

  it("calls the platform's tool and refuses the tenant's, which never reaches the server", async () => {
    const platform = await execute('platform_lookup', 'p-1');
    expect(platform.body).toMatchObject({ status: 'COMPLETED' });
    const before = remote.requests.length;
    const tenant = await execute('tenant_lookup', 't-1');
    expect(tenant.body).toMatchObject({ status: 'FAILED', errorClass: 'OUTBOUND_BLOCKED' });
    expect(JSON.stringify(tenant.body)).toMatch(/reserved for the platform's own tools/);
    expect(remote.requests.length).toBe(before);
  });

  it("refuses a tenant's MCP service on a reserved address (its first sync never reaches it)", async () => {
    const tenantAdmin = await createKey(gw, 'acme', 'admin');
    const mcp = await gw.http
      .post('/api/v1/admin/mcp-services')
      .set(tenantAdmin)
      .send({ name: 'inside', kind: 'STATIC', url: remote.url('/mcp') });
    expect(JSON.stringify(mcp.body)).toMatch(/reserved for the platform's own tools/);
    expect(remote.requests.filter((r) => r.url.startsWith('/mcp'))).toEqual([]);
  });

  it("refuses a tenant's HTTP knowledge base on a reserved address", async () => {
    const kb = await createKnowledgeBase(gw, {
      name: 'inside',
      tenantId: 'acme',
      kind: 'HTTP',
      url: remote.url('/kb'),
    });
    const res = await gw.http.post(`/api/v1/admin/knowledge-bases/${kb}/search`).set(gw.admin).send({ query: 'q' });
    expect(res.status).toBe(502);
    expect(res.body.error.message).toMatch(/reserved for the platform's own tools/);
    expect(remote.requests.filter((r) => r.url.startsWith('/kb'))).toEqual([]);
  });
});
