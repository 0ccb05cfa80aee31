import { createTestDatabaseUrl, TestDatabase } from '@test/support/test-database';
import { agentWithTool, createKey, startTestGateway, TestGateway } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';

/**
 * OUTBOUND_ALLOW_HOSTS entries with a port (`localhost:11434`, `127.0.0.1:11434`) open that port only: another
 * service on the same loopback host stays out of reach, over the real HTTP path (two loopback servers), for a host
 * name (vetted when the socket connects) and an IP literal (vetted before each request) alike.
 */
describe('OUTBOUND_ALLOW_HOSTS entries limited to a port', () => {
  let db: TestDatabase;
  let gw: TestGateway;
  let allowed: RecordingHttpServer;
  let other: RecordingHttpServer;
  let runtime: { Authorization: string };

  beforeAll(async () => {
    allowed = await new RecordingHttpServer().start();
    other = await new RecordingHttpServer().start();
    const port = new URL(allowed.url()).port;
    db = await createTestDatabaseUrl('sqlite');
    gw = await startTestGateway(db.url, {
      OUTBOUND_ALLOW_HOSTS: `localhost:${port},127.0.0.1:${port}`,
      TOOL_MAX_ATTEMPTS: '1',
    });
    runtime = await createKey(gw, 'acme', 'runtime');
  });

  afterAll(async () => {
    await gw?.close();
    await allowed?.stop();
    await other?.stop();
    await db?.drop();
  });

  async function execute(endpoint: string): Promise<Record<string, unknown>> {
    const name = `t_${Math.random().toString(36).slice(2, 10)}`;
    const { agentId } = await agentWithTool(gw, 'acme', { name, endpoint });
    const res = await gw.http
      .post(`/api/v1/tools/${name}/execute`)
      .set(runtime)
      .send({ agentId, userId: 'u1', permissions: [], toolCallId: `c-${name}`, arguments: { q: 'x' } })
      .expect(200);
    return res.body as Record<string, unknown>;
  }

  it.each(['localhost', '127.0.0.1'])('reaches the listed port of %s and refuses its other ports', async (host) => {
    const onPort = (server: RecordingHttpServer) => server.url('/echo').replace('127.0.0.1', host);
    expect(await execute(onPort(allowed))).toMatchObject({ status: 'COMPLETED' });
    const refused = await execute(onPort(other));
    expect(refused).toMatchObject({ status: 'FAILED', errorClass: 'OUTBOUND_BLOCKED' });
    expect(JSON.stringify(refused)).toContain(`:${new URL(other.url()).port} refused: 127.0.0.1 is a loopback`);
    expect(other.requests).toEqual([]);
  });
});
