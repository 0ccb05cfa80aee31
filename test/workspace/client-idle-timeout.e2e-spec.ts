import { connect, type AddressInfo } from 'node:net';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gatewayForSuite, toolBody } from '@test/support/gateway-test-app';
import { waitFor } from '@test/support/wait-for';
import { CrashRemoteServer } from '@test/crash/support/crash-remote.server';
import {
  FILE_TOOLS,
  streamedUpload,
  workspaceRootForSuite,
  workspaceTenant,
  type WorkspaceTenant,
} from './workspace-test-kit';

const IDLE_MS = 1000;
/** Larger than the loopback socket buffers of both sides: a reader that stops leaves the server writing. */
const DOWNLOAD_BYTES = 16 * 1024 * 1024;

/** CLIENT_IDLE_TIMEOUT_MS: stalled uploads and downloads are cut; slow ones and long routes are not. */
describe('CLIENT_IDLE_TIMEOUT_MS', () => {
  const root = workspaceRootForSuite();
  const suite = gatewayForSuite('sqlite', {
    WORKSPACE_ROOT: root,
    CLIENT_IDLE_TIMEOUT_MS: String(IDLE_MS),
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
  });
  let remote: CrashRemoteServer;
  let t: WorkspaceTenant;
  let port: number;

  beforeAll(async () => {
    remote = await new CrashRemoteServer().start();
    await suite.gw.app.listen(0, '127.0.0.1');
    port = (suite.gw.app.getHttpServer().address() as AddressInfo).port;
    const tool = toolBody({
      name: 'slow_lookup',
      tenantId: 't-idle',
      endpoint: remote.url('/lookup'),
      parameters: { type: 'object', properties: { ref: { type: 'string' }, delayMs: { type: 'integer' } } },
    });
    await suite.gw.http.post('/api/v1/admin/tools').set(suite.gw.admin).send(tool).expect(201);
    t = await workspaceTenant(suite.gw, 't-idle', [...FILE_TOOLS, 'slow_lookup']);
  });
  afterAll(() => remote?.stop());

  const streamedUploadOf = (sessionId: string, path: string) => streamedUpload(port, t.runtime, sessionId, path);

  it('closes the connection of an upload whose sender stops sending; nothing lands, its staging is freed', async () => {
    const sessionId = await t.newSession(['FILE_ROOM']);
    const { body, answer } = streamedUploadOf(sessionId, 'stalled.txt');
    body.write('the first part, then nothing');
    await waitFor(() => readdirSync(join(root, '.staging')).length > 0, { description: 'the upload to be staged' });

    expect(typeof (await answer)).not.toBe('number'); // no answer: the connection was closed
    await waitFor(() => readdirSync(join(root, '.staging')).length === 0, { description: 'the staging to be freed' });
    const read = await t.call(sessionId, 'READ_FILE', { path: 'stalled.txt' });
    expect(read).toMatchObject({ status: 'FAILED' });
    body.destroy();
  });

  it('keeps an upload whose bytes keep coming, however long it takes in all', async () => {
    const sessionId = await t.newSession(['FILE_ROOM']);
    const { body, answer } = streamedUploadOf(sessionId, 'slow.txt');
    for (let i = 0; i < 8; i++) {
      body.write(`part ${i}; `);
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS / 4));
    }
    body.end('done');
    expect(await answer).toBe(201);
  });

  it('lets a route run longer than the timeout once the body is read (an act waiting for its tool)', async () => {
    const sessionId = await t.newSession(['FILE_ROOM']);
    const result = await t.call(sessionId, 'slow_lookup', { ref: 'idle-act', delayMs: IDLE_MS * 2 });
    expect(result).toMatchObject({ status: 'COMPLETED', content: '{"done":"idle-act","n":1}' });
  });

  it('closes a download whose reader stops reading, and serves the whole file to one that reads', async () => {
    const sessionId = await t.newSession(['FILE_ROOM']);
    await suite.gw.http
      .put(`/api/v1/sessions/${sessionId}/files/content?path=big.bin`)
      .set(t.runtime)
      .set('content-type', 'application/octet-stream')
      .send(Buffer.alloc(DOWNLOAD_BYTES, 0x61))
      .expect(201);
    const path = `/api/v1/sessions/${sessionId}/files/content?path=big.bin`;

    const stalled = connect(port, '127.0.0.1');
    let received = 0;
    stalled.on('data', (chunk: Buffer) => (received += chunk.length));
    stalled.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => stalled.once('close', () => resolve()));
    stalled.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: ${t.runtime.Authorization}\r\n\r\n`);
    await waitFor(() => received > 0, { description: 'the download to start' });
    stalled.pause();
    // Longer than the timeout: the server, blocked on a full socket, closes the connection meanwhile.
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS * 3));
    stalled.resume();
    await closed;
    expect(received).toBeLessThan(DOWNLOAD_BYTES);

    const whole = await suite.gw.http
      .get(path)
      .set(t.runtime)
      .buffer(true)
      .parse((res, done) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => done(null, bytes));
      })
      .expect(200);
    expect(whole.body).toBe(DOWNLOAD_BYTES);
  });
});
