import { NacosTestServer } from '@test/support/nacos/nacos-test-server';
import { createKey, toolBody, type TestGateway } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, type TestDatabase } from '@test/support/test-database';
import { startMcpSyncGateway } from './support/mcp-sync-gateway';
import { CatalogMcpServer, catalogTool } from './support/catalog-mcp.server';
import { McpSyncApi } from './support/mcp-sync-fixtures';

const PLATFORM_NS = 'platform-internal';
const ACME_NS = 'acme-ns';
const GROUP = 'INTERNAL';
const SERVICE = 'billing-mcp';

/**
 * An MCP_NACOS tool an admin registers by hand ("service@group", no MCP service) is looked up in its owner's
 * namespace: the platform's for a platform-wide tool, the tenant's assigned one (NACOS_TENANT_NAMESPACES) for a
 * tenant's. A tenant with none reaches no namespace, least of all the platform's (which the same service name in
 * the platform's namespace would otherwise answer with the platform's Nacos credentials).
 */
describe("hand-registered MCP_NACOS tools are looked up in their owner's Nacos namespace only", () => {
  const nacos = new NacosTestServer({ pushDelayMs: 50 });
  const platformServer = new CatalogMcpServer([catalogTool('refund')], { label: 'platform' });
  const acmeServer = new CatalogMcpServer([catalogTool('refund')], { label: 'acme' });
  let db: TestDatabase;
  let gw: TestGateway;
  let api: McpSyncApi;

  beforeAll(async () => {
    const { addr } = await nacos.start();
    await Promise.all([platformServer.start(), acmeServer.start()]);
    const at = (server: { port: number }) => ({ ip: '127.0.0.1', port: server.port, metadata: { 'mcp.path': '/mcp' } });
    nacos.registerInstance(PLATFORM_NS, GROUP, SERVICE, at(platformServer));
    nacos.registerInstance(ACME_NS, GROUP, SERVICE, at(acmeServer));
    db = await createTestDatabaseUrl('sqlite');
    gw = await startMcpSyncGateway(db.url, {
      NACOS_SERVER_ADDR: addr,
      NACOS_NAMESPACE: PLATFORM_NS,
      NACOS_TENANT_NAMESPACES: `acme=${ACME_NS}`,
    });
    api = new McpSyncApi(gw);
  });

  afterAll(async () => {
    await gw?.close();
    await Promise.all([platformServer.stop(), acmeServer.stop()]);
    await nacos.stop();
    await db?.drop();
  });

  const nacosTool = (name: string, extra: Record<string, unknown> = {}) =>
    toolBody({ name, serviceType: 'MCP_NACOS', endpoint: `${SERVICE}@${GROUP}`, remoteName: 'refund', ...extra });

  /** Creates the tool with `key`, binds it to a new agent of `tenantId`, and runs it with that tenant's runtime key. */
  async function run(key: { Authorization: string }, tenantId: string, body: Record<string, unknown>) {
    const tool = (await gw.http.post('/api/v1/admin/tools').set(key).send(body).expect(201)).body as { id: string };
    const agentId = await api.createAgent(tenantId, `agent-${String(body.name)}`);
    await api.bind(agentId, [tool.id]);
    return api.execute(await createKey(gw, tenantId, 'runtime'), agentId, String(body.name), { q: 'hello' });
  }

  it("a tenant's tool is answered in the tenant's namespace, a platform tool in the platform's", async () => {
    const acme = await run(await createKey(gw, 'acme', 'admin'), 'acme', nacosTool('acme_refund'));
    expect(acme).toMatchObject({ status: 'COMPLETED', content: 'acme:refund:{"q":"hello"}' });

    const platform = await run(gw.admin, 'acme', nacosTool('platform_refund'));
    expect(platform).toMatchObject({ status: 'COMPLETED', content: 'platform:refund:{"q":"hello"}' });
  });

  it('a tool whose Nacos service has no instance fails saying what it waits for', async () => {
    const ghost = await run(gw.admin, 'acme', nacosTool('ghost_refund', { endpoint: `ghost@${GROUP}` }));
    expect(ghost).toMatchObject({ status: 'FAILED', isError: true, errorClass: 'MCP_CONNECT_FAILED' });
    expect(ghost.content).toContain(
      `no healthy instance of Nacos service ${GROUP}@@ghost (namespace ${PLATFORM_NS}) to call ghost_refund on; call again once an instance of it is registered and healthy in Nacos`,
    );
  });

  it('a tenant without a namespace may not register one, and one registered for it looks nothing up', async () => {
    const calledBefore = platformServer.calls.length;
    const globexAdmin = await createKey(gw, 'globex', 'admin');
    const refused = await gw.http.post('/api/v1/admin/tools').set(globexAdmin).send(nacosTool('peek_refund'));
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    expect(refused.body.error.message).toContain('NACOS_TENANT_NAMESPACES');
    // Nor by turning an HTTP tool into one.
    const http = (await gw.http.post('/api/v1/admin/tools').set(globexAdmin).send(toolBody()).expect(201)).body;
    await gw.http
      .patch(`/api/v1/admin/tools/${http.id}`)
      .set(globexAdmin)
      .send({ serviceType: 'MCP_NACOS', endpoint: `${SERVICE}@${GROUP}` })
      .expect(403);

    // The platform key may register it for the tenant (namespaces may be assigned later); the call looks nothing up.
    const result = await run(gw.admin, 'globex', nacosTool('globex_refund', { tenantId: 'globex' }));
    expect(result).toMatchObject({ status: 'FAILED', isError: true, errorClass: 'INVALID_REQUEST', attempts: 1 });
    expect(result.content).toContain('Tenant globex has no Nacos namespace');
    expect(platformServer.calls.length).toBe(calledBefore);
  });
});
