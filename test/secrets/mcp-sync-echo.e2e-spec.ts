import { Logger } from '@nestjs/common';
import { createKey, type TestGateway } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, type TestDatabase } from '@test/support/test-database';
import { startMcpSyncGateway } from '@test/mcp-services/support/mcp-sync-gateway';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';

const SECRETS_KEY = 'c3'.repeat(32);
const TENANT_TOKEN = 'acme-mcp/token+9f8e7d6c5b4a';

/**
 * An MCP server that refuses the sync's token and quotes it ("the token ... has expired"), as a tool's remote may: the
 * service's health reason and sync report (API answers, stored rows) and the WARN line never show the secret, as a
 * tool call's result and error never do.
 */
describe("MCP service sync: a secret the server echoes in its refusal is hidden from the service's reports", () => {
  const refusing = new RecordingHttpServer();
  let db: TestDatabase;
  let gw: TestGateway;
  let acmeAdmin: { Authorization: string };

  beforeAll(async () => {
    refusing.handler = (req, res) => {
      const token = String(req.headers.authorization).replace(/^Bearer /, '');
      res.statusCode = 401;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ error: `the token ${token} (${encodeURIComponent(token)}) has expired` }));
    };
    await refusing.start();
    db = await createTestDatabaseUrl('sqlite');
    gw = await startMcpSyncGateway(db.url, { SECRETS_KEY });
    acmeAdmin = await createKey(gw, 'acme', 'admin');
    await gw.http
      .put('/api/v1/admin/tenants/acme/secrets/MCPTOKEN')
      .set(acmeAdmin)
      .send({ value: TENANT_TOKEN })
      .expect(201);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await gw?.close();
    await refusing.stop();
    await db?.drop();
  });

  it('create, sync (502) and the service as listed: the refusal is reported with *** in place of the token', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const created = (
      await gw.http
        .post('/api/v1/admin/mcp-services')
        .set(acmeAdmin)
        .send({
          name: 'expired',
          kind: 'STATIC',
          url: refusing.url('/mcp'),
          transport: 'streamable-http',
          headers: { Authorization: 'Bearer ${secret:MCPTOKEN}' },
        })
        .expect(201)
    ).body;
    expect(refusing.requests.map((r) => r.headers.authorization)).toContain(`Bearer ${TENANT_TOKEN}`);
    expect(created.health).toBe('DOWN');
    expect(created.healthReason).toContain('the token *** (***) has expired');
    const refusal = (await gw.http.post(`/api/v1/admin/mcp-services/${created.id}/sync`).set(acmeAdmin).expect(502))
      .body;
    expect(refusal.error.code).toBe('MCP_SERVICE_UNREACHABLE');
    expect(refusal.error.message).toContain('the token *** (***) has expired');
    const listed = (await gw.http.get('/api/v1/admin/mcp-services').set(acmeAdmin).expect(200)).body;
    const shown = JSON.stringify([created, refusal, listed]);
    expect(shown).not.toContain(TENANT_TOKEN);
    expect(shown).not.toContain(encodeURIComponent(TENANT_TOKEN));
    const lines = warn.mock.calls.map(([line]) => String(line)).filter((line) => line.includes('MCP service expired'));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('')).not.toContain(TENANT_TOKEN);
  });
});
