import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import {
  appendFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createKey, gatewayForSuite } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';
import { waitFor } from '@test/support/wait-for';
import { WorkspaceLocator } from '@app/modules/workspace/workspace.locator';
import { WorkspaceFiles } from '@app/modules/workspace/workspace-files.service';
import {
  FILE_TOOLS,
  holdNextWholeRead,
  workspaceRootForSuite,
  workspaceTenant,
  type WorkspaceTenant,
} from './workspace-test-kit';

const MAX_BYTES = 256 * 1024;
/** WORKSPACE_MAX_BYTES of the slow-upload suite. */
const SLOW_SUITE_MAX_BYTES = 1024 * 1024;

describeEachDialect('runtime file API: list, download, streamed upload', (dialect) => {
  const root = workspaceRootForSuite();
  const suite = gatewayForSuite(dialect, { WORKSPACE_ROOT: root, WORKSPACE_MAX_BYTES: String(MAX_BYTES) });
  let t: WorkspaceTenant;
  let sessionId: string;
  const files = (query = '') => `/api/v1/sessions/${sessionId}/files${query}`;

  beforeAll(async () => {
    t = await workspaceTenant(suite.gw, 't-upload', FILE_TOOLS);
    sessionId = await t.newSession(['FILE_ROOM']);
  });

  it('PUT raw bytes: 201 new, 200 replaced, file.written; GET downloads the same bytes; the model reads them', async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 10, 13, 0x7f]);
    const created = await suite.gw.http
      .put(files('/content?path=in/data.bin'))
      .set(t.runtime)
      .set('content-type', 'application/octet-stream')
      .send(bytes)
      .expect(201);
    expect(created.body).toEqual({ path: 'in/data.bin', bytes: 7, created: true });
    const replaced = await suite.gw.http
      .put(files('/content?path=in/data.bin'))
      .set(t.runtime)
      .set('content-type', 'application/octet-stream')
      .send(Buffer.from('plain text now'))
      .expect(200);
    expect(replaced.body).toEqual({ path: 'in/data.bin', bytes: 14, created: false });
    // Any media type on this route is taken as raw bytes (text/csv here), gzip is inflated first.
    await suite.gw.http
      .put(files('/content?path=in/table.csv'))
      .set(t.runtime)
      .set('content-type', 'text/csv')
      .set('content-encoding', 'gzip')
      .send(gzipSync('a,b\n1,2\n'))
      .expect(201);

    const down = await suite.gw.http
      .get(files('/content?path=in/table.csv'))
      .set(t.runtime)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      })
      .expect(200);
    expect(down.headers['content-type']).toBe('application/octet-stream');
    expect((down.body as Buffer).toString()).toBe('a,b\n1,2\n');

    const listing = await suite.gw.http.get(files('?path=in')).set(t.runtime).expect(200);
    expect(listing.body.items).toEqual([
      { path: 'in/data.bin', type: 'file', size: 14 },
      { path: 'in/table.csv', type: 'file', size: 8 },
    ]);
    const read = await t.call(sessionId, 'READ_FILE', { path: 'in/data.bin' });
    expect(JSON.parse(read.content).content).toBe('plain text now');

    const events = await suite.gw.http.get(`/api/v1/sessions/${sessionId}/events`).set(t.runtime).expect(200);
    expect(
      events.body.items
        .filter((e: { type: string }) => e.type === 'file.written')
        .map((e: { data: unknown }) => e.data),
    ).toEqual([
      { path: 'in/data.bin', bytes: 7, created: true, by: 'UPLOAD' },
      { path: 'in/data.bin', bytes: 14, created: false, by: 'UPLOAD' },
      { path: 'in/table.csv', bytes: 8, created: true, by: 'UPLOAD' },
    ]);
  });

  it('streams an upload larger than the quota and stops it at the quota: 413, nothing lands, nothing staged', async () => {
    const addr = await listen();
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    const body = new Readable({
      read() {
        // Far more than the quota (and than the 10 MB JSON limit): the server must stop reading, not buffer it.
        if (sent >= 64 * 1024 * 1024) return this.push(null);
        sent += chunk.length;
        this.push(chunk);
      },
    });
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: addr.port,
          method: 'PUT',
          agent: false,
          path: files('/content?path=huge.bin'),
          headers: {
            ...t.runtime,
            'content-type': 'application/octet-stream',
            'transfer-encoding': 'chunked',
            connection: 'close',
          },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body: text }));
        },
      );
      req.on('error', reject);
      body.pipe(req);
    });
    body.destroy();
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error).toMatchObject({ code: 'WORKSPACE_QUOTA_EXCEEDED' });
    expect(JSON.parse(answer.body).error.message).toMatch(/WORKSPACE_MAX_(FILE_)?BYTES \(\d+\).*; send a smaller file/);
    expect(sent).toBeLessThan(64 * 1024 * 1024);
    const dir = suite.gw.app.get(WorkspaceLocator).dirOf('t-upload', sessionId);
    expect(existsSync(join(dir, 'huge.bin'))).toBe(false);
    expect(readdirSync(join(root, '.staging'))).toEqual([]);
  });

  it('lets only one of two uploads at the same moment into room for one', async () => {
    const racer = await t.newSession(['FILE_ROOM']);
    const bytes = Buffer.alloc(Math.floor(MAX_BYTES * 0.6), 0x62);
    const upload = (name: string) =>
      suite.gw.http
        .put(`/api/v1/sessions/${racer}/files/content?path=${name}`)
        .set(t.runtime)
        .set('content-type', 'application/octet-stream')
        .send(bytes);
    const answers = await Promise.all([upload('a.bin'), upload('b.bin')]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 413]);
    const dir = suite.gw.app.get(WorkspaceLocator).dirOf('t-upload', racer);
    expect(readdirSync(dir).filter((f) => f.endsWith('.bin'))).toHaveLength(1);
  });

  it('never loses an upload that lands while EDIT_FILE works on the same file: the two happen one after the other', async () => {
    const racer = await t.newSession(['FILE_ROOM']);
    expect((await t.call(racer, 'WRITE_FILE', { path: 'doc.txt', content: 'alpha old' })).status).toBe('COMPLETED');
    const files = suite.gw.app.get(WorkspaceFiles);
    const { hasRead: editRead, goOn: letEditGoOn } = holdNextWholeRead(files);
    const landings = jest.spyOn(files, 'writeStaged');
    try {
      const edit = t.call(racer, 'EDIT_FILE', { path: 'doc.txt', oldText: 'alpha', newText: 'omega' });
      await editRead;
      const upload = suite.gw.http
        .put(`/api/v1/sessions/${racer}/files/content?path=doc.txt`)
        .set(t.runtime)
        .set('content-type', 'application/octet-stream')
        .send(Buffer.from('alpha uploaded'))
        .then((res) => res);
      await waitFor(() => landings.mock.calls.length > 0, { description: 'the upload to be landing' });
      letEditGoOn();
      expect((await upload).status).toBe(200);
      expect((await edit).status).toBe('COMPLETED');
    } finally {
      letEditGoOn();
      jest.restoreAllMocks();
    }
    const text = readFileSync(join(suite.gw.app.get(WorkspaceLocator).dirOf('t-upload', racer), 'doc.txt'), 'utf8');
    // Edit then upload, or upload then edit: never the edit of the text the upload replaced ("omega old").
    expect(['alpha uploaded', 'omega uploaded']).toContain(text);
  });

  it('downloads the bytes the file had when it was opened, as many as Content-Length says, though a command appends after', async () => {
    const dir = await suite.gw.app.get(WorkspaceLocator).ensure('t-upload', sessionId);
    const service = suite.gw.app.get(WorkspaceFiles);
    for (const before of ['', 'line 1\n']) {
      writeFileSync(join(dir, 'grow.log'), before);
      // Opened in the gate; a command may then run and append in place while the download streams.
      const file = await service.openForDownload(dir, 'grow.log');
      appendFileSync(join(dir, 'grow.log'), 'line 2\n');
      const chunks: Buffer[] = [];
      for await (const chunk of file.stream) chunks.push(chunk as Buffer);
      expect({ size: file.size, body: Buffer.concat(chunks).toString() }).toEqual({
        size: before.length,
        body: before,
      });
    }
    rmSync(join(dir, 'grow.log'));
  });

  it('fails a download whose file is cut while it streams, never ending it short of its size', async () => {
    const dir = await suite.gw.app.get(WorkspaceLocator).ensure('t-upload', sessionId);
    writeFileSync(join(dir, 'cut.bin'), Buffer.alloc(1024 * 1024, 7));
    const file = await suite.gw.app.get(WorkspaceFiles).openForDownload(dir, 'cut.bin');
    const chunks: Buffer[] = [];
    const read = (async () => {
      for await (const chunk of file.stream) {
        chunks.push(chunk as Buffer);
        // A command truncates it once the download has begun.
        if (chunks.length === 1) truncateSync(join(dir, 'cut.bin'), 10);
      }
    })();
    await expect(read).rejects.toThrow(/^"cut\.bin" was cut to \d+ of its 1048576 bytes while it was being read$/);
    expect(Buffer.concat(chunks).length).toBeLessThan(file.size);
    // Opened again, it is the file as it is now.
    const again = await suite.gw.app.get(WorkspaceFiles).openForDownload(dir, 'cut.bin');
    expect(again.size).toBe(10);
    again.stream.destroy();
    rmSync(join(dir, 'cut.bin'));
  });

  it('cuts the connection of a download whose file a command truncates while it streams (real HTTP)', async () => {
    const dir = await suite.gw.app.get(WorkspaceLocator).ensure('t-upload', sessionId);
    const size = 64 * 1024 * 1024; // more than the socket buffers hold: the server is still reading it when cut
    writeFileSync(join(dir, 'big.log'), Buffer.alloc(size, 7));
    const server = suite.gw.app.getHttpServer();
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    const request = (path: string) =>
      `GET ${path} HTTP/1.1\r\nHost: gw\r\nAuthorization: ${t.runtime.Authorization}\r\n\r\n`;
    let received = Buffer.alloc(0);
    const outcome = new Promise<string>((resolve) => {
      socket.once('data', () => {
        // The headers and the first bytes are here; the client stops reading, a command truncates the file, and a
        // second request waits on the same connection: answered only if the first response was ended as complete.
        socket.pause();
        truncateSync(join(dir, 'big.log'), 0);
        socket.write(request('/health'));
        socket.resume();
      });
      socket.on('data', (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        if (received.includes('"status":"ok"')) resolve('the next response came as if the download were complete');
      });
      socket.on('error', () => undefined);
      socket.on('close', () => resolve('connection cut'));
    });
    socket.write(request(files('/content?path=big.log')));
    expect(await outcome).toBe('connection cut');
    socket.destroy();
    const head = received.subarray(0, received.indexOf('\r\n\r\n')).toString();
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head).toContain(`content-length: ${size}`);
    expect(received.length - head.length - 4).toBeLessThan(size);
    rmSync(join(dir, 'big.log'));
  });

  it('lists one folder or everything below it; a recursive flag other than true or false is a 400 naming it', async () => {
    for (const path of ['deep/a/b/one.txt', 'deep/two.txt']) {
      await suite.gw.http
        .put(files(`/content?path=${path}`))
        .set(t.runtime)
        .send(Buffer.from('x'))
        .expect(201);
    }
    const paths = async (query: string) =>
      (await suite.gw.http.get(files(query)).set(t.runtime).expect(200)).body.items.map(
        (e: { path: string }) => e.path,
      );
    expect(await paths('?path=deep')).toEqual(['deep/a', 'deep/two.txt']);
    expect(await paths('?path=deep&recursive=false')).toEqual(['deep/a', 'deep/two.txt']);
    expect((await paths('?path=deep&recursive=true')).sort()).toEqual([
      'deep/a',
      'deep/a/b',
      'deep/a/b/one.txt',
      'deep/two.txt',
    ]);
    for (const flag of ['1', 'yes', 'TRUE']) {
      const refused = await suite.gw.http
        .get(files(`?path=deep&recursive=${flag}`))
        .set(t.runtime)
        .expect(400);
      expect(refused.body.error.message).toMatch(/recursive must be true or false/);
    }
  });

  it('answers a listing as every list of the contract does: {items, total, page, pageSize}, paged', async () => {
    for (const name of ['p1', 'p2', 'p3']) {
      await suite.gw.http
        .put(files(`/content?path=paged/${name}.txt`))
        .set(t.runtime)
        .send(Buffer.from(name))
        .expect(201);
    }
    const whole = await suite.gw.http.get(files('?path=paged')).set(t.runtime).expect(200);
    expect(whole.body).toEqual({
      path: 'paged',
      items: [
        { path: 'paged/p1.txt', type: 'file', size: 2 },
        { path: 'paged/p2.txt', type: 'file', size: 2 },
        { path: 'paged/p3.txt', type: 'file', size: 2 },
      ],
      total: 3,
      page: 1,
      pageSize: 50,
      truncated: false,
    });
    const second = await suite.gw.http.get(files('?path=paged&page=2&pageSize=2')).set(t.runtime).expect(200);
    expect(second.body).toMatchObject({
      items: [{ path: 'paged/p3.txt', type: 'file', size: 2 }],
      total: 3,
      page: 2,
      pageSize: 2,
    });
    await suite.gw.http.get(files('?path=paged&pageSize=0')).set(t.runtime).expect(400);
  });

  it('refuses path escapes on upload and download with 400 WORKSPACE_PATH_INVALID', async () => {
    for (const path of ['../x', '/etc/passwd', 'a%00b']) {
      const res = await suite.gw.http
        .put(files(`/content?path=${path}`))
        .set(t.runtime)
        .set('content-type', 'application/octet-stream')
        .send(Buffer.from('x'));
      expect({ path, status: res.status, code: res.body.error?.code }).toEqual({
        path,
        status: 400,
        code: 'WORKSPACE_PATH_INVALID',
      });
    }
    const down = await suite.gw.http.get(files('/content?path=../../gateway.sqlite')).set(t.runtime).expect(400);
    expect(down.body.error.message).toContain('".." is not allowed');
  });

  it("refuses to upload to a folder's path (ending with /) instead of writing a file of the folder's name", async () => {
    for (const path of ['drafts/', 'drafts/./']) {
      const res = await suite.gw.http
        .put(files(`/content?path=${path}`))
        .set(t.runtime)
        .set('content-type', 'application/octet-stream')
        .send(Buffer.from('x'))
        .expect(400);
      expect(res.body.error).toMatchObject({ code: 'WORKSPACE_PATH_INVALID' });
      expect(res.body.error.message).toContain('name the file, e.g. drafts/notes.txt');
    }
    await suite.gw.http.get(files('/content?path=drafts')).set(t.runtime).expect(404);
  });

  // The raw body is read only once the session is found: the inflate error came before anything listened to it, and an
  // unhandled 'error' event ended the gateway process (one runtime request took every tenant down); in-process it was
  // a 500 and an uncaught error.
  it.each([
    ['gzip', Buffer.from('not gzip at all')],
    ['gzip', gzipSync('a truncated body').subarray(0, 12)],
    ['deflate', Buffer.from('not deflate')],
    ['br', Buffer.from('not brotli at all')],
  ] as const)(
    'answers an upload whose %s body does not inflate with a 400 naming the encoding; nothing lands',
    async (encoding, body) => {
      const res = await suite.gw.http
        .put(files('/content?path=broken.bin'))
        .set(t.runtime)
        .set('content-type', 'application/octet-stream')
        .set('content-encoding', encoding)
        .send(body);
      expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
      expect(res.body.error.message).toContain(`does not inflate as ${encoding}`);
      expect(res.body.error.message).toContain('without Content-Encoding');
      await suite.gw.http.get(files('/content?path=broken.bin')).set(t.runtime).expect(404);
      await suite.gw.http.get('/health').expect(200);
    },
  );

  it('keeps the rest of the API JSON-only: octet-stream elsewhere is a 415', async () => {
    const res = await suite.gw.http
      .post('/api/v1/sessions')
      .set(t.runtime)
      .set('content-type', 'application/octet-stream')
      .send(Buffer.from('{}'));
    expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
    const other = await suite.gw.http
      .post('/api/v1/sessions')
      .set(t.runtime)
      .set('content-type', 'text/plain')
      .send('hello');
    expect(other.status).toBe(415);
  });

  it("is tenant-scoped (404 for another tenant's session) and needs FILE_ROOM or SANDBOX (409)", async () => {
    const stranger = await createKey(suite.gw, 't-stranger');
    await suite.gw.http.get(files()).set(stranger).expect(404);
    await suite.gw.http
      .put(files('/content?path=x.txt'))
      .set(stranger)
      .set('content-type', 'application/octet-stream')
      .send(Buffer.from('x'))
      .expect(404);
    await suite.gw.http.get(files()).set(suite.gw.admin).expect(403);
    const plain = await t.newSession([]);
    const res = await suite.gw.http.get(`/api/v1/sessions/${plain}/files`).set(t.runtime).expect(409);
    expect(res.body.error.code).toBe('WORKSPACE_UNAVAILABLE');
    expect(
      readFileSync(join(suite.gw.app.get(WorkspaceLocator).dirOf('t-upload', sessionId), 'in/data.bin'), 'utf8'),
    ).toBe('plain text now');
  });

  async function listen(): Promise<AddressInfo> {
    const server = suite.gw.app.getHttpServer();
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return server.address() as AddressInfo;
  }
});

describeEachDialect('a slow upload holds nothing while it streams', (dialect) => {
  const root = workspaceRootForSuite();
  // A short call budget: a write kept waiting behind the upload fails within the test instead of after a minute.
  const suite = gatewayForSuite(dialect, {
    WORKSPACE_ROOT: root,
    TOOL_DEFAULT_TIMEOUT_MS: '2000',
    WORKSPACE_MAX_BYTES: String(SLOW_SUITE_MAX_BYTES),
  });
  let t: WorkspaceTenant;

  beforeAll(async () => {
    t = await workspaceTenant(suite.gw, 't-slow-upload', FILE_TOOLS);
  });

  /**
   * A chunked PUT of `path` whose body the test writes (and ends) itself, its answer once it ends, and how to break
   * the connection off mid-body (the answer then fails).
   */
  async function streamedUpload(
    sessionId: string,
    path: string,
  ): Promise<{ body: PassThrough; answer: Promise<{ status: number; body: string }>; abort: () => void }> {
    const server = suite.gw.app.getHttpServer();
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const body = new PassThrough();
    let abort = () => {};
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: (server.address() as AddressInfo).port,
          method: 'PUT',
          agent: false,
          path: `/api/v1/sessions/${sessionId}/files/content?path=${path}`,
          headers: { ...t.runtime, 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body: text }));
        },
      );
      req.on('error', reject);
      abort = () => req.destroy();
      body.pipe(req);
    });
    return { body, answer, abort };
  }

  it("lets the model's writes and other uploads land while an upload's sender pauses; the upload lands when it ends", async () => {
    const sessionId = await t.newSession(['FILE_ROOM']);
    const { body, answer } = await streamedUpload(sessionId, 'slow.txt');
    try {
      body.write('first part, ');
      // The upload is being staged: its bytes are on the server.
      await waitFor(() => readdirSync(join(root, '.staging')).length > 0, { description: 'the upload to be staged' });

      const write = await t.call(sessionId, 'WRITE_FILE', { path: 'note.txt', content: 'written meanwhile' });
      expect(write).toMatchObject({ status: 'COMPLETED', isError: false });
      await suite.gw.http
        .put(`/api/v1/sessions/${sessionId}/files/content?path=other.txt`)
        .set(t.runtime)
        .set('content-type', 'application/octet-stream')
        .send(Buffer.from('uploaded meanwhile'))
        .expect(201);
    } finally {
      // A failing expectation above must not leave the request open (the gateway could not close).
      if (!body.writableEnded) body.end('second part');
    }
    expect(await answer).toMatchObject({ status: 201 });
    const dir = suite.gw.app.get(WorkspaceLocator).dirOf('t-slow-upload', sessionId);
    expect(readFileSync(join(dir, 'slow.txt'), 'utf8')).toBe('first part, second part');
    expect(readFileSync(join(dir, 'note.txt'), 'utf8')).toBe('written meanwhile');
    expect(readFileSync(join(dir, 'other.txt'), 'utf8')).toBe('uploaded meanwhile');
    expect(readdirSync(join(root, '.staging'))).toEqual([]);
  });

  it('stages no more than WORKSPACE_MAX_BYTES for one workspace at once: an upload past it is a 413 while the others stream', async () => {
    const sessionId = await t.newSession(['FILE_ROOM']);
    const stagingDir = join(root, '.staging');
    const stagedBytes = () => readdirSync(stagingDir).reduce((sum, f) => sum + statSync(join(stagingDir, f)).size, 0);
    const upload = (path: string, bytes: number) =>
      suite.gw.http
        .put(`/api/v1/sessions/${sessionId}/files/content?path=${path}`)
        .set(t.runtime)
        .set('content-type', 'application/octet-stream')
        .send(Buffer.alloc(bytes, 0x63));
    const held = Math.floor(SLOW_SUITE_MAX_BYTES * 0.7);
    const first = await streamedUpload(sessionId, 'first.bin');
    const firstAnswer = first.answer.catch((err: Error) => err);
    try {
      first.body.write(Buffer.alloc(held, 0x61));
      await waitFor(() => stagedBytes() >= held, { description: 'the first upload to be staged' });

      // It would fit the empty workspace, but not beside the bytes the first upload stages.
      const second = await upload('second.bin', Math.floor(SLOW_SUITE_MAX_BYTES * 0.4)).expect(413);
      expect(second.body.error.code).toBe('WORKSPACE_QUOTA_EXCEEDED');
      expect(second.body.error.message).toMatch(/still being received hold \d+ bytes.*WORKSPACE_MAX_BYTES/);
    } finally {
      first.abort();
    }
    expect(await firstAnswer).toHaveProperty('message'); // the connection was broken off, no answer came
    // The broken-off upload gives its room back: the same upload now lands.
    await waitFor(() => readdirSync(stagingDir).length === 0, { description: 'the broken-off upload to be discarded' });
    await upload('second.bin', Math.floor(SLOW_SUITE_MAX_BYTES * 0.4)).expect(201);
    const dir = suite.gw.app.get(WorkspaceLocator).dirOf('t-slow-upload', sessionId);
    expect(readdirSync(dir)).toEqual(['second.bin']);
  });

  it('answers 409 WORKSPACE_UNAVAILABLE to an upload whose session was closed while it streamed; nothing lands', async () => {
    const sessionId = await t.newSession(['FILE_ROOM']);
    const { body, answer } = await streamedUpload(sessionId, 'late.txt');
    try {
      body.write('sent before the close, ');
      await waitFor(() => readdirSync(join(root, '.staging')).length > 0, { description: 'the upload to be staged' });
      await suite.gw.http.delete(`/api/v1/sessions/${sessionId}`).set(t.runtime).expect(200);
    } finally {
      if (!body.writableEnded) body.end('and after');
    }
    const res = await answer;
    expect({ status: res.status, code: JSON.parse(res.body).error?.code }).toEqual({
      status: 409,
      code: 'WORKSPACE_UNAVAILABLE',
    });
    expect(existsSync(suite.gw.app.get(WorkspaceLocator).dirOf('t-slow-upload', sessionId))).toBe(false);
    expect(readdirSync(join(root, '.staging'))).toEqual([]);
  });
});
