import type { AddressInfo } from 'node:net';
import { request as httpRequest } from 'node:http';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createKey, gatewayForSuite } from '@test/support/gateway-test-app';
import { waitFor } from '@test/support/wait-for';
import { streamedUpload, workspaceRootForSuite, workspaceTenant, type WorkspaceTenant } from './workspace-test-kit';

const MAX = 2;

/** TRANSFERS_MAX_PER_KEY: a key's open uploads and downloads are capped; each frees its place however it ends. */
describe('TRANSFERS_MAX_PER_KEY', () => {
  const root = workspaceRootForSuite();
  const suite = gatewayForSuite('sqlite', { WORKSPACE_ROOT: root, TRANSFERS_MAX_PER_KEY: String(MAX) });
  let t: WorkspaceTenant;
  let port: number;
  let sessionId: string;
  let artifactId: string;

  beforeAll(async () => {
    await suite.gw.app.listen(0, '127.0.0.1');
    port = (suite.gw.app.getHttpServer().address() as AddressInfo).port;
    t = await workspaceTenant(suite.gw, 't-transfers', ['WRITE_FILE', 'PUBLISH_FILE']);
    sessionId = await t.newSession(['FILE_ROOM']);
    await t.call(sessionId, 'WRITE_FILE', { path: 'small.txt', content: 'small' });
    artifactId = JSON.parse((await t.call(sessionId, 'PUBLISH_FILE', { path: 'small.txt' })).content).artifactId;
  });

  const staged = () => {
    try {
      return readdirSync(join(root, '.staging')).length;
    } catch {
      return 0;
    }
  };

  /** `count` uploads of the runtime key, each staged (holding its place) and kept open until the test ends it. */
  async function holdUploads(count: number, name: string) {
    const before = staged();
    const uploads = Array.from({ length: count }, (_, i) => {
      const upload = streamedUpload(port, t.runtime, sessionId, `${name}-${i}.txt`);
      upload.body.write('the first part');
      return upload;
    });
    await waitFor(() => staged() === before + count, { description: `${count} uploads to be staged` });
    return uploads;
  }

  const download = (auth = t.runtime, path = 'small.txt') =>
    suite.gw.http.get(`/api/v1/sessions/${sessionId}/files/content?path=${path}`).set(auth);

  async function expectRefused(res: { status: number; headers: Record<string, string>; body: unknown }) {
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toEqual({
      error: {
        code: 'TOO_MANY_REQUESTS',
        message: `This API key already has ${MAX} file transfers open on this gateway instance (TRANSFERS_MAX_PER_KEY); retry once one of them has finished (see the Retry-After header).`,
        details: {},
      },
    });
  }

  it('refuses a key one transfer past the cap with 429 and Retry-After, lets other keys and routes on, and frees a finished one', async () => {
    const [first, second] = await holdUploads(MAX, 'finish');

    await expectRefused(await download());
    await expectRefused(await suite.gw.http.get(`/api/v1/artifacts/${artifactId}/content`).set(t.runtime));
    await expectRefused(
      await suite.gw.http
        .put(`/api/v1/sessions/${sessionId}/files/content?path=third.txt`)
        .set(t.runtime)
        .set('content-type', 'application/octet-stream')
        .send(Buffer.from('third')),
    );
    // Per key: another key of the tenant transfers; a route that is no transfer is not counted.
    const other = await createKey(suite.gw, 't-transfers');
    expect((await download(other)).status).toBe(200);
    await suite.gw.http.get(`/api/v1/sessions/${sessionId}/files`).set(t.runtime).expect(200);

    first.body.end(' and the end');
    expect(await first.answer).toBe(201);
    await waitFor(async () => (await download()).status === 200, {
      description: 'the finished upload to free its place',
    });
    second.body.end();
    expect(await second.answer).toBe(201);
  });

  it('frees the place of a transfer whose client goes away', async () => {
    const [cut, kept] = await holdUploads(MAX, 'abort');
    await expectRefused(await download());

    cut.request.destroy();
    expect(typeof (await cut.answer)).not.toBe('number'); // no answer: the connection is gone
    await waitFor(async () => (await download()).status === 200, { description: 'the cut upload to free its place' });
    kept.body.end();
    expect(await kept.answer).toBe(201);
  });

  it('frees the place of a transfer that fails', async () => {
    const [held] = await holdUploads(1, 'error');
    // Each would keep its place if an error answer did not free it: the upload below would be refused.
    for (let i = 0; i < MAX; i++) expect((await download(t.runtime, 'missing.txt')).status).toBe(404);

    const [second] = await holdUploads(1, 'error-after');
    await expectRefused(await download());
    held.body.end();
    second.body.end();
    expect([await held.answer, await second.answer]).toEqual([201, 201]);
  });

  it('counts skill uploads (multipart zips) as file transfers of their key', async () => {
    const admin = await createKey(suite.gw, 't-transfers', 'admin');
    // Refused (429) while the key's places are held; otherwise 400 (no skillContent): nothing is created either way.
    const probe = async () =>
      (await suite.gw.http.post('/api/v1/admin/skills').set(admin).send({ tenantId: 't-transfers' })).status;
    const boundary = 'held-skill-upload';
    const held = Array.from({ length: MAX }, () => {
      const request = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        agent: false,
        path: '/api/v1/admin/skills',
        headers: {
          ...admin,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'transfer-encoding': 'chunked',
        },
      });
      request.on('error', () => undefined);
      request.write(`--${boundary}\r\nContent-Disposition: form-data; name="tenantId"\r\n\r\nt-transfers\r\n`);
      return request;
    });

    await waitFor(async () => (await probe()) === 429, { description: 'the held skill uploads to take every place' });
    await expectRefused(await suite.gw.http.post('/api/v1/admin/skills').set(admin).send({ tenantId: 't-transfers' }));
    held[0].destroy();
    await waitFor(async () => (await probe()) === 400, { description: 'the cut skill upload to free its place' });
    held[1].destroy();
  });
});
