import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';
import { WorkspaceLocator } from '@app/modules/workspace/workspace.locator';
import { WorkspaceFiles } from '@app/modules/workspace/workspace-files.service';
import { waitFor } from '@test/support/wait-for';
import {
  FILE_TOOLS,
  holdNextWholeRead,
  workspaceRootForSuite,
  workspaceTenant,
  type WorkspaceTenant,
} from './workspace-test-kit';

describeEachDialect('workspace file tools through act', (dialect) => {
  const root = workspaceRootForSuite();
  const suite = gatewayForSuite(dialect, {
    WORKSPACE_ROOT: root,
    WORKSPACE_MAX_BYTES: '4096',
    WORKSPACE_MAX_FILES: '8',
  });
  let t: WorkspaceTenant;
  let sessionId: string;
  const dir = () => suite.gw.app.get(WorkspaceLocator).dirOf('t-files', sessionId);

  beforeAll(async () => {
    t = await workspaceTenant(suite.gw, 't-files', FILE_TOOLS);
    sessionId = await t.newSession(['FILE_ROOM']);
  });

  it('writes (creating folders), reads a page as JSON, lists, edits once, deletes', async () => {
    const write = await t.call(sessionId, 'WRITE_FILE', { path: 'notes/a/b.txt', content: 'hello world, hello' });
    expect(write).toMatchObject({ status: 'COMPLETED', isError: false });
    expect(JSON.parse(write.content)).toEqual({ path: 'notes/a/b.txt', bytes: 18, created: true });
    expect(readFileSync(join(dir(), 'notes/a/b.txt'), 'utf8')).toBe('hello world, hello');

    const page = await t.call(sessionId, 'READ_FILE', { path: './notes/a/b.txt', offset: 6, limit: 5 });
    expect(JSON.parse(page.content)).toEqual({
      path: 'notes/a/b.txt',
      offset: 6,
      limit: 5,
      totalChars: 18,
      hasMore: true,
      content: 'world',
    });

    const listing = JSON.parse((await t.call(sessionId, 'LIST_FILES', { recursive: true })).content);
    expect(listing.entries).toEqual([
      { path: 'notes', type: 'directory', size: 0 },
      { path: 'notes/a', type: 'directory', size: 0 },
      { path: 'notes/a/b.txt', type: 'file', size: 18 },
    ]);
    const shallow = JSON.parse((await t.call(sessionId, 'LIST_FILES', { path: 'notes' })).content);
    expect(shallow.entries.map((e: { path: string }) => e.path)).toEqual(['notes/a']);

    const twice = await t.call(sessionId, 'EDIT_FILE', { path: 'notes/a/b.txt', oldText: 'hello', newText: 'bye' });
    expect(twice).toMatchObject({ status: 'FAILED', isError: true });
    expect(twice.content).toContain('occurs 2 times');
    const none = await t.call(sessionId, 'EDIT_FILE', { path: 'notes/a/b.txt', oldText: 'absent', newText: 'x' });
    expect(none.content).toContain('does not occur');
    const once = await t.call(sessionId, 'EDIT_FILE', { path: 'notes/a/b.txt', oldText: 'world', newText: 'there' });
    expect(once.status).toBe('COMPLETED');
    expect(readFileSync(join(dir(), 'notes/a/b.txt'), 'utf8')).toBe('hello there, hello');

    const del = await t.call(sessionId, 'DELETE_FILE', { path: 'notes/a/b.txt' });
    expect(JSON.parse(del.content)).toEqual({ path: 'notes/a/b.txt', type: 'file' });
    const gone = await t.call(sessionId, 'READ_FILE', { path: 'notes/a/b.txt' });
    expect(gone).toMatchObject({ status: 'FAILED' });
    expect(gone.content).toContain(
      'No file or folder "notes/a/b.txt" in the workspace; LIST_FILES (GET /api/v1/sessions/{id}/files) shows what is there.',
    );

    const events = await suite.gw.http.get(`/api/v1/sessions/${sessionId}/events`).set(t.runtime).expect(200);
    const fileEvents = events.body.items
      .filter((e: { type: string }) => e.type.startsWith('file.'))
      .map((e: { type: string; data: Record<string, unknown> }) => [e.type, e.data.path, e.data.by]);
    expect(fileEvents).toEqual([
      ['file.written', 'notes/a/b.txt', 'WRITE_FILE'],
      ['file.written', 'notes/a/b.txt', 'EDIT_FILE'],
      ['file.deleted', 'notes/a/b.txt', 'DELETE_FILE'],
    ]);
  });

  it('pages a file without cutting an emoji in two', async () => {
    await t.call(sessionId, 'WRITE_FILE', { path: 'emoji.txt', content: 'a😀b' });
    const first = JSON.parse((await t.call(sessionId, 'READ_FILE', { path: 'emoji.txt', limit: 2 })).content);
    expect(first).toMatchObject({ offset: 0, content: 'a', totalChars: 4, hasMore: true });
    const next = JSON.parse((await t.call(sessionId, 'READ_FILE', { path: 'emoji.txt', offset: 1, limit: 1 })).content);
    expect(next).toMatchObject({ offset: 1, content: '😀', hasMore: true });
    await t.call(sessionId, 'DELETE_FILE', { path: 'emoji.txt' });
  });

  it.each([
    ['../outside.txt', '".." is not allowed'],
    ['a/../../x', '".." is not allowed'],
    ['/etc/passwd', 'it is absolute'],
    ['a\\..\\b', 'backslash'],
    ['a\u0000b', 'NUL'],
    ['C:/x', 'it is absolute'],
  ])('refuses the path %j, naming it', async (path, why) => {
    const res = await t.call(sessionId, 'WRITE_FILE', { path, content: 'x' });
    expect(res).toMatchObject({ status: 'FAILED', isError: true });
    expect(res.content).toContain(why);
  });

  it('refuses a symlink made on disk inside the workspace that leads out, for read, write, list and delete-through', async () => {
    const outside = workspaceRootForSuite();
    writeFileSync(join(outside, 'secret.txt'), 'top secret');
    mkdirSync(dir(), { recursive: true });
    symlinkSync('/', join(dir(), 'escape'));
    symlinkSync(outside, join(dir(), 'out'));
    symlinkSync(join(outside, 'secret.txt'), join(dir(), 'link.txt'));
    for (const [name, args] of [
      ['READ_FILE', { path: 'escape/etc/passwd' }],
      ['READ_FILE', { path: 'link.txt' }],
      ['LIST_FILES', { path: 'out' }],
      ['WRITE_FILE', { path: 'out/new.txt', content: 'x' }],
      ['WRITE_FILE', { path: 'link.txt', content: 'overwrite' }],
      ['EDIT_FILE', { path: 'link.txt', oldText: 'top', newText: 'no' }],
      ['PUBLISH_FILE', { path: 'out/secret.txt' }],
      ['DELETE_FILE', { path: 'out/secret.txt' }],
    ] as const) {
      const res = await t.call(sessionId, name, args);
      expect({ name, status: res.status }).toEqual({ name, status: 'FAILED' });
      expect(res.content).toContain('leads out of the workspace');
      expect(res.content).toContain('name a path inside the workspace (LIST_FILES shows them), or delete the link');
    }
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
    // The root listing shows the links as links, without following them.
    const listing = JSON.parse((await t.call(sessionId, 'LIST_FILES', {})).content);
    expect(
      listing.entries.filter((e: { type: string }) => e.type === 'symlink').map((e: { path: string }) => e.path),
    ).toEqual(['escape', 'link.txt', 'out']);
    // Deleting the link removes the link only.
    expect((await t.call(sessionId, 'DELETE_FILE', { path: 'out' })).status).toBe('COMPLETED');
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
    for (const p of ['escape', 'link.txt']) await t.call(sessionId, 'DELETE_FILE', { path: p });
  });

  it('refuses a FIFO made in the workspace at once (read, edit, publish, download) instead of waiting for a writer', async () => {
    mkdirSync(dir(), { recursive: true });
    execFileSync('mkfifo', [join(dir(), 'pipe')]);
    for (const [name, args] of [
      ['READ_FILE', { path: 'pipe' }],
      ['EDIT_FILE', { path: 'pipe', oldText: 'a', newText: 'b' }],
      ['PUBLISH_FILE', { path: 'pipe' }],
    ] as const) {
      const res = await t.call(sessionId, name, args);
      expect({ name, status: res.status }).toEqual({ name, status: 'FAILED' });
      expect(res.content).toContain('"pipe" is not a regular file');
    }
    const download = await suite.gw.http
      .get(`/api/v1/sessions/${sessionId}/files/content?path=pipe`)
      .set(t.runtime)
      .expect(400);
    expect(download.body.error).toMatchObject({ code: 'WORKSPACE_PATH_INVALID' });
    expect((await t.call(sessionId, 'DELETE_FILE', { path: 'pipe' })).status).toBe('COMPLETED');
  });

  it('a symlink inside that stays inside works', async () => {
    await t.call(sessionId, 'WRITE_FILE', { path: 'real.txt', content: 'inside' });
    symlinkSync('real.txt', join(dir(), 'alias.txt'));
    const read = await t.call(sessionId, 'READ_FILE', { path: 'alias.txt' });
    expect(JSON.parse(read.content).content).toBe('inside');
    await t.call(sessionId, 'DELETE_FILE', { path: 'alias.txt' });
    await t.call(sessionId, 'DELETE_FILE', { path: 'real.txt' });
  });

  it('refuses a write through a symlink to a folder inside, naming the path, and leaves the folder as it was', async () => {
    await t.call(sessionId, 'WRITE_FILE', { path: 'sub/kept.txt', content: 'kept' });
    symlinkSync('sub', join(dir(), 'to-sub'));
    const write = await t.call(sessionId, 'WRITE_FILE', { path: 'to-sub', content: 'x' });
    expect(write).toMatchObject({ status: 'FAILED', isError: true });
    expect(write.content).toContain(
      'Workspace path "to-sub" is refused: it is a symlink to a folder: name a file inside that folder',
    );
    expect(write.content).not.toContain(root);
    const upload = await suite.gw.http
      .put(`/api/v1/sessions/${sessionId}/files/content?path=to-sub`)
      .set(t.runtime)
      .set('content-type', 'application/octet-stream')
      .send(Buffer.from('x'))
      .expect(400);
    expect(upload.body.error).toMatchObject({ code: 'WORKSPACE_PATH_INVALID' });
    expect(readFileSync(join(dir(), 'sub/kept.txt'), 'utf8')).toBe('kept');
    await t.call(sessionId, 'DELETE_FILE', { path: 'to-sub' });
    await t.call(sessionId, 'DELETE_FILE', { path: 'sub' });
  });

  it('refuses a write through a dangling symlink or a symlink loop, naming the path, without host paths', async () => {
    mkdirSync(dir(), { recursive: true });
    symlinkSync('nowhere', join(dir(), 'dangling'));
    symlinkSync('loop', join(dir(), 'loop'));
    for (const [path, why] of [
      ['dangling', 'it is a symlink to nothing'],
      ['dangling/new.txt', '"dangling" is a symlink to nothing'],
      ['loop', 'it is a symlink loop'],
      ['loop/new.txt', '"loop" is a symlink loop'],
    ]) {
      const write = await t.call(sessionId, 'WRITE_FILE', { path, content: 'x' });
      expect({ path, status: write.status }).toEqual({ path, status: 'FAILED' });
      expect(write.content).toContain(
        `Workspace path "${path}" is refused: ${why}: delete the link (DELETE_FILE) or re-point it with RUN_COMMAND (ln -sfn)`,
      );
      expect(write.content).not.toContain(root);
      const upload = await suite.gw.http
        .put(`/api/v1/sessions/${sessionId}/files/content?path=${encodeURIComponent(path)}`)
        .set(t.runtime)
        .set('content-type', 'application/octet-stream')
        .send(Buffer.from('x'));
      expect({ path, status: upload.status, code: upload.body.error?.code }).toEqual({
        path,
        status: 400,
        code: 'WORKSPACE_PATH_INVALID',
      });
    }
    expect(readdirSync(dir())).not.toContain('nowhere');
    for (const path of ['dangling', 'loop']) await t.call(sessionId, 'DELETE_FILE', { path });
  });

  it("removes a folder of many files without queueing a request per file on the gateway's thread pool", async () => {
    // A command can leave a million files in a folder; removed in-process, each was an lstat and an unlink queued at
    // once on the thread pool every tenant's file operations and DNS lookups share (and ~2.5 KB of memory each).
    const queuedFsRequests = () =>
      process.getActiveResourcesInfo().filter((r) => r === 'FSReqPromise' || r === 'FSReqCallback').length;
    const fill = (folder: string) => {
      mkdirSync(folder, { recursive: true });
      for (let i = 0; i < 5000; i++) writeFileSync(join(folder, `f${i}`), '');
    };
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, queuedFsRequests())), 1);
    try {
      fill(join(dir(), 'many'));
      most = 0;
      const deleted = await t.call(sessionId, 'DELETE_FILE', { path: 'many' });
      expect(JSON.parse(deleted.content)).toEqual({ path: 'many', type: 'directory' });
      expect(readdirSync(dir())).not.toContain('many');

      const closing = await t.newSession(['FILE_ROOM']);
      fill(join(suite.gw.app.get(WorkspaceLocator).dirOf('t-files', closing), 'many'));
      most = 0;
      await suite.gw.http.delete(`/api/v1/sessions/${closing}`).set(t.runtime).expect(200);
      expect(existsSync(suite.gw.app.get(WorkspaceLocator).dirOf('t-files', closing))).toBe(false);
    } finally {
      clearInterval(sampler);
    }
    expect(most).toBeLessThan(100);
  });

  it('refuses a path that a symlink leads past PATH_MAX, naming it, without host paths', async () => {
    // 20 folders of 250 characters (as a command makes them, with relative steps), and a link to the 16th: the path
    // through the link is short, the real path it leads to is past PATH_MAX (4,096 bytes).
    const name = 'd'.repeat(250);
    mkdirSync(dir(), { recursive: true });
    execFileSync('bash', [
      '-c',
      `cd "$1" && for i in $(seq 20); do mkdir ${name} && cd ${name}; done && echo deep > f`,
      'bash',
      dir(),
    ]);
    symlinkSync(Array(16).fill(name).join('/'), join(dir(), 'short'));
    const path = `short/${Array(4).fill(name).join('/')}/f`;
    // DELETE_FILE names the folder it resolves (the file's parent), the others the whole path.
    const why = 'is refused: it leads (through a symlink) to a path longer than the host can name (PATH_MAX)';
    for (const [tool, args] of [
      ['READ_FILE', { path }],
      ['EDIT_FILE', { path, oldText: 'deep', newText: 'x' }],
      ['PUBLISH_FILE', { path }],
      ['LIST_FILES', { path }],
      ['DELETE_FILE', { path }],
    ] as const) {
      const res = await t.call(sessionId, tool, args);
      expect({ tool, status: res.status }).toEqual({ tool, status: 'FAILED' });
      expect(res.content).toContain(`Workspace path "short/${name}/`);
      expect(res.content).toContain(why);
      expect(res.content).not.toContain(root);
    }
    const download = await suite.gw.http
      .get(`/api/v1/sessions/${sessionId}/files/content?path=${encodeURIComponent(path)}`)
      .set(t.runtime);
    expect({ status: download.status, code: download.body.error?.code }).toEqual({
      status: 400,
      code: 'WORKSPACE_PATH_INVALID',
    });
    for (const entry of ['short', name])
      expect((await t.call(sessionId, 'DELETE_FILE', { path: entry })).status).toBe('COMPLETED');
  });

  it('refuses to edit a file that is not UTF-8 text, leaving its bytes as they were', async () => {
    mkdirSync(dir(), { recursive: true });
    const latin1 = Buffer.from('name;city\nRen\xe9;K\xf6ln\n', 'latin1'); // as a command's export may write it
    writeFileSync(join(dir(), 'export.csv'), latin1);
    const edit = await t.call(sessionId, 'EDIT_FILE', {
      path: 'export.csv',
      oldText: 'name;city',
      newText: 'who;where',
    });
    expect(edit).toMatchObject({ status: 'FAILED', isError: true });
    expect(edit.content).toContain('"export.csv" is not UTF-8 text');
    expect(readFileSync(join(dir(), 'export.csv'))).toEqual(latin1);
    await t.call(sessionId, 'DELETE_FILE', { path: 'export.csv' });
  });

  it('refuses an oldText holding half of a character (a lone surrogate), which matched half of an emoji and broke it', async () => {
    mkdirSync(dir(), { recursive: true });
    const bytes = Buffer.from('smile \u{1F600} here\n', 'utf8');
    writeFileSync(join(dir(), 'emoji.txt'), bytes);
    for (const oldText of ['\ud83d', '\ude00 here']) {
      const edit = await t.call(sessionId, 'EDIT_FILE', { path: 'emoji.txt', oldText, newText: 'x' });
      expect(edit).toMatchObject({ status: 'FAILED', isError: true });
      expect(edit.content).toContain('oldText holds half of a character');
      expect(readFileSync(join(dir(), 'emoji.txt'))).toEqual(bytes);
    }
    await t.call(sessionId, 'DELETE_FILE', { path: 'emoji.txt' });
  });

  // No file name can hold half a character: the path was written as U+FFFD, so "\ud800" and "\udc00" were one file,
  // answered by a name it does not have, and an artifact published by it read back under another name (SQLite: three
  // U+FFFD).
  it('refuses a path holding half of a character (a lone surrogate), which named a file called otherwise', async () => {
    for (const [tool, args] of [
      ['WRITE_FILE', { path: 'half\ud800.txt', content: 'one' }],
      ['WRITE_FILE', { path: 'halves/\udc00.txt', content: 'two' }],
      ['READ_FILE', { path: 'half\ud800.txt' }],
      ['PUBLISH_FILE', { path: 'half\ud800.txt' }],
    ] as const) {
      const res = await t.call(sessionId, tool, args);
      expect(res).toMatchObject({ status: 'FAILED', isError: true });
      expect(res.content).toContain('holds half of a character (a lone UTF-16 surrogate');
      expect(res.content).toMatch(/Workspace path "(half\\ud800\.txt|halves\/\\udc00\.txt)" is refused/);
    }
    for (const landed of ['half\uFFFD.txt', 'halves']) expect(existsSync(join(dir(), landed))).toBe(false);
  });

  it('deletes a file that EDIT_FILE is editing after the edit lands, never before it (the edit would bring it back)', async () => {
    expect((await t.call(sessionId, 'WRITE_FILE', { path: 'doomed.txt', content: 'alpha old' })).status).toBe(
      'COMPLETED',
    );
    const files = suite.gw.app.get(WorkspaceFiles);
    const { hasRead: editRead, goOn: letEditGoOn } = holdNextWholeRead(files);
    const deletes = jest.spyOn(files, 'delete');
    try {
      const edit = t.call(sessionId, 'EDIT_FILE', { path: 'doomed.txt', oldText: 'alpha', newText: 'omega' });
      await editRead;
      const deletion = t.call(sessionId, 'DELETE_FILE', { path: 'doomed.txt' });
      await waitFor(() => deletes.mock.calls.length > 0, { description: 'DELETE_FILE to reach the workspace' });
      letEditGoOn();
      expect((await edit).status).toBe('COMPLETED');
      expect((await deletion).status).toBe('COMPLETED');
    } finally {
      letEditGoOn();
      jest.restoreAllMocks();
    }
    // Edit then delete: the file is gone, as DELETE_FILE answered.
    expect(readdirSync(dir())).not.toContain('doomed.txt');
  });

  it('keeps the mode of a file it edits or replaces (a script made executable stays executable)', async () => {
    await t.call(sessionId, 'WRITE_FILE', { path: 'build.sh', content: '#!/bin/sh\necho bulid\n' });
    chmodSync(join(dir(), 'build.sh'), 0o750);
    const edit = await t.call(sessionId, 'EDIT_FILE', { path: 'build.sh', oldText: 'bulid', newText: 'build' });
    expect(edit.status).toBe('COMPLETED');
    expect(statSync(join(dir(), 'build.sh')).mode & 0o777).toBe(0o750);
    expect((await t.call(sessionId, 'WRITE_FILE', { path: 'build.sh', content: '#!/bin/sh\n' })).status).toBe(
      'COMPLETED',
    );
    expect(statSync(join(dir(), 'build.sh')).mode & 0o777).toBe(0o750);
    await t.call(sessionId, 'DELETE_FILE', { path: 'build.sh' });
  });

  it('enforces WORKSPACE_MAX_BYTES and WORKSPACE_MAX_FILES; a refused write leaves nothing behind', async () => {
    expect(JSON.parse((await t.call(sessionId, 'DELETE_FILE', { path: 'notes' })).content).type).toBe('directory');
    const big = await t.call(sessionId, 'WRITE_FILE', { path: 'big.txt', content: 'x'.repeat(5000) });
    expect(big).toMatchObject({ status: 'FAILED' });
    expect(big.content).toContain(
      '"big.txt" would have more than WORKSPACE_MAX_BYTES (4096) bytes, all a workspace may hold; send a smaller file',
    );
    const fits = await t.call(sessionId, 'WRITE_FILE', { path: 'big.txt', content: 'x'.repeat(3000) });
    expect(fits.status).toBe('COMPLETED');
    // Replacing counts the replaced file's bytes as freed.
    expect((await t.call(sessionId, 'WRITE_FILE', { path: 'big.txt', content: 'y'.repeat(4000) })).status).toBe(
      'COMPLETED',
    );
    const over = await t.call(sessionId, 'WRITE_FILE', { path: 'more.txt', content: 'z'.repeat(200) });
    expect(over.content).toMatch(
      /writing 200 bytes to "more\.txt" would pass WORKSPACE_MAX_BYTES \(4096; \d+ used\); delete files no longer needed \(DELETE_FILE\) and write it again/,
    );
    await t.call(sessionId, 'DELETE_FILE', { path: 'big.txt' });
    for (let i = 0; i < 8; i++) await t.call(sessionId, 'WRITE_FILE', { path: `f${i}`, content: '' });
    const ninth = await t.call(sessionId, 'WRITE_FILE', { path: 'f9', content: '' });
    expect(ninth.content).toContain('WORKSPACE_MAX_FILES');
    const listing = JSON.parse((await t.call(sessionId, 'LIST_FILES', {})).content);
    expect(listing.entries).toHaveLength(8);
    for (let i = 0; i < 8; i++) await t.call(sessionId, 'DELETE_FILE', { path: `f${i}` });
  });

  it('counts the folders a write would create against WORKSPACE_MAX_FILES, and creates none when refused', async () => {
    for (let i = 0; i < 5; i++) await t.call(sessionId, 'WRITE_FILE', { path: `g${i}`, content: '' });
    const deep = Array.from({ length: 200 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('/');
    const refused = await t.call(sessionId, 'WRITE_FILE', { path: `${deep}/f`, content: 'x' });
    expect(refused.status).toBe('FAILED');
    expect(refused.content).toContain('this write would add 200 folders, WORKSPACE_MAX_FILES is 8');
    expect(readdirSync(dir()).sort()).toEqual(['g0', 'g1', 'g2', 'g3', 'g4']);
    // Two new folders and a file make 8: that fits.
    expect((await t.call(sessionId, 'WRITE_FILE', { path: 'a/b/f', content: 'x' })).status).toBe('COMPLETED');
    // More entries than the limit (as a command may leave): no write at all, not even a replacement.
    writeFileSync(join(dir(), 'made-by-a-command'), '');
    const overFull = await t.call(sessionId, 'WRITE_FILE', { path: 'g0', content: 'x' });
    expect(overFull.content).toContain('the workspace holds more than 8 entries');
    for (const path of ['a', 'g0', 'g1', 'g2', 'g3', 'g4', 'made-by-a-command'])
      await t.call(sessionId, 'DELETE_FILE', { path });
  });

  it('creates no folders for a write refused for its bytes (they would count against WORKSPACE_MAX_FILES)', async () => {
    expect((await t.call(sessionId, 'WRITE_FILE', { path: 'held.txt', content: 'x'.repeat(3000) })).status).toBe(
      'COMPLETED',
    );
    const refused = await t.call(sessionId, 'WRITE_FILE', { path: 'new/deeper/more.txt', content: 'y'.repeat(2000) });
    expect(refused.status).toBe('FAILED');
    expect(refused.content).toContain('WORKSPACE_MAX_BYTES');
    expect(readdirSync(dir())).toEqual(['held.txt']);
    await t.call(sessionId, 'DELETE_FILE', { path: 'held.txt' });
  });

  it('lists, counts and deletes files and folders whose names are not UTF-8 (a command made them)', async () => {
    mkdirSync(dir(), { recursive: true });
    const onDisk = (...names: Buffer[]) => Buffer.concat([Buffer.from(`${dir()}/`), ...names]);
    const latin1 = Buffer.from('caf\xe9.txt', 'latin1'); // "café.txt" in Latin-1: byte 0xE9 alone is not UTF-8
    const folder = Buffer.from([0x64, 0xff, 0x72]); // "d", 0xFF, "r"
    writeFileSync(onDisk(latin1), 'x'.repeat(3000));
    mkdirSync(onDisk(folder));
    writeFileSync(onDisk(folder, Buffer.from('/inner.txt')), 'y'.repeat(500));

    const listing = JSON.parse((await t.call(sessionId, 'LIST_FILES', { recursive: true })).content);
    expect(listing.entries).toEqual([
      { path: 'caf\uFFFD.txt', type: 'file', size: 3000, pathNotUtf8: true },
      { path: 'd\uFFFDr', type: 'directory', size: 0, pathNotUtf8: true },
      { path: 'd\uFFFDr/inner.txt', type: 'file', size: 500, pathNotUtf8: true },
    ]);
    // They count against the quota (4096 bytes): 3500 are taken.
    const over = await t.call(sessionId, 'WRITE_FILE', { path: 'more.txt', content: 'z'.repeat(1000) });
    expect(over.content).toContain('WORKSPACE_MAX_BYTES');

    // The paths as listed are what DELETE_FILE takes.
    const file = await t.call(sessionId, 'DELETE_FILE', { path: listing.entries[0].path });
    expect(file).toMatchObject({ status: 'COMPLETED' });
    expect(JSON.parse(file.content)).toEqual({ path: 'caf\uFFFD.txt', type: 'file' });
    const tree = await t.call(sessionId, 'DELETE_FILE', { path: listing.entries[1].path });
    expect(JSON.parse(tree.content)).toEqual({ path: 'd\uFFFDr', type: 'directory' });
    expect(readdirSync(dir())).toEqual([]);
    const gone = await t.call(sessionId, 'DELETE_FILE', { path: 'caf\uFFFD.txt' });
    expect(gone.content).toContain('No file or folder "caf\uFFFD.txt"');
  });

  it('refuses to read, edit, write or list through a name that is not UTF-8, never reaching a file truly named as it reads', async () => {
    mkdirSync(dir(), { recursive: true });
    const latin1 = (name: string) => Buffer.from(name, 'latin1'); // "\xff" is the byte 0xFF: alone, not UTF-8
    const onDisk = (...names: string[]) => Buffer.concat([Buffer.from(`${dir()}/`), ...names.map(latin1)]);
    // "d\xff" (not UTF-8, listed as "d\uFFFD") beside a folder truly named "d\uFFFD", and a link to the first.
    mkdirSync(onDisk('d\xff'));
    writeFileSync(onDisk('d\xff', '/f.txt'), 'secret\n');
    mkdirSync(join(dir(), 'd\uFFFD'));
    writeFileSync(join(dir(), 'd\uFFFD/f.txt'), 'other\n');
    symlinkSync(latin1('d\xff'), join(dir(), 'link'));
    writeFileSync(onDisk('bad\xff.txt'), 'undecodable\n');
    // Listed alike, told apart.
    const listed = JSON.parse((await t.call(sessionId, 'LIST_FILES', {})).content).entries;
    expect(listed.filter((e: { path: string }) => e.path === 'd\uFFFD')).toEqual([
      { path: 'd\uFFFD', type: 'directory', size: 0 },
      { path: 'd\uFFFD', type: 'directory', size: 0, pathNotUtf8: true },
    ]);
    const untouched = () => {
      expect(readFileSync(onDisk('d\xff', '/f.txt'), 'utf8')).toBe('secret\n');
      expect(readFileSync(join(dir(), 'd\uFFFD/f.txt'), 'utf8')).toBe('other\n');
      expect(readdirSync(onDisk('d\xff'))).toEqual(['f.txt']);
      expect(readdirSync(join(dir(), 'd\uFFFD'))).toEqual(['f.txt']);
    };

    for (const [tool, args] of [
      ['READ_FILE', { path: 'link/f.txt' }],
      ['EDIT_FILE', { path: 'link/f.txt', oldText: 'other', newText: 'mangled' }],
      ['WRITE_FILE', { path: 'link/new.txt', content: 'n' }],
    ] as const) {
      const res = await t.call(sessionId, tool, args);
      expect(res).toMatchObject({ status: 'FAILED', isError: true });
      expect(res.content).toContain(
        'is refused: it leads to a file or folder whose name is not UTF-8 text (a command made it; listings show its undecodable bytes as U+FFFD), which the file tools cannot name without mistaking it for another file: rename that one to UTF-8 with RUN_COMMAND (mv)',
      );
    }
    for (const [tool, args] of [
      ['READ_FILE', { path: 'd\uFFFD/f.txt' }],
      ['EDIT_FILE', { path: 'd\uFFFD/f.txt', oldText: 'other', newText: 'mangled' }],
      ['WRITE_FILE', { path: 'd\uFFFD/new.txt', content: 'n' }],
      ['LIST_FILES', { path: 'd\uFFFD' }],
    ] as const) {
      const res = await t.call(sessionId, tool, args);
      expect(res).toMatchObject({ status: 'FAILED', isError: true });
      expect(res.content).toContain('"d\uFFFD" stands for a name that is not UTF-8 text');
    }
    const read = await t.call(sessionId, 'READ_FILE', { path: 'bad\uFFFD.txt' });
    expect(read.content).toContain('rename it to UTF-8 with RUN_COMMAND (`mv -- bad*.txt new-name` reaches it)');
    // DELETE_FILE takes a name as listed, but not one that two names read as.
    const both = await t.call(sessionId, 'DELETE_FILE', { path: 'd\uFFFD' });
    expect(both.content).toContain('names several files whose names are not UTF-8 and read alike');
    untouched();
    for (const path of ['bad\uFFFD.txt', 'link'])
      expect((await t.call(sessionId, 'DELETE_FILE', { path })).status).toBe('COMPLETED');
    for (const folder of [onDisk('d\xff'), join(dir(), 'd\uFFFD')]) rmSync(folder, { recursive: true });
    expect(readdirSync(dir())).toEqual([]);
  });

  it('reads no more names of a folder than WORKSPACE_MAX_FILES to tell what a name with U+FFFD in a path stands for', async () => {
    // A command may leave millions of names in one folder: every call naming a path with U+FFFD read them all.
    const crowded = join(dir(), 'crowded');
    mkdirSync(crowded, { recursive: true });
    for (let i = 0; i < 8; i++) writeFileSync(join(crowded, `n${i}`), '');
    writeFileSync(join(crowded, 'caf\uFFFD.txt'), 'true name\n');
    const path = 'crowded/caf\uFFFD.txt';
    const why = `"crowded" holds more than 8 names (WORKSPACE_MAX_FILES), too many to look through`;
    for (const [tool, args] of [
      ['READ_FILE', { path }],
      ['EDIT_FILE', { path, oldText: 'true', newText: 'edited' }],
      ['PUBLISH_FILE', { path }],
      ['LIST_FILES', { path }],
      ['DELETE_FILE', { path }],
    ] as const) {
      const res = await t.call(sessionId, tool, args);
      expect({ tool, status: res.status }).toEqual({ tool, status: 'FAILED' });
      expect(res.content).toContain(why);
    }
    const download = await suite.gw.http
      .get(`/api/v1/sessions/${sessionId}/files/content?path=${encodeURIComponent(path)}`)
      .set(t.runtime);
    expect({ status: download.status, code: download.body.error?.code }).toEqual({
      status: 400,
      code: 'WORKSPACE_PATH_INVALID',
    });
    expect(download.body.error.message).toContain(why);
    expect(readFileSync(join(crowded, 'caf\uFFFD.txt'), 'utf8')).toBe('true name\n');

    // Within the limit the folder is looked through, and the name is the file truly named so.
    rmSync(join(crowded, 'n0'));
    expect(JSON.parse((await t.call(sessionId, 'READ_FILE', { path })).content).content).toBe('true name\n');
    rmSync(crowded, { recursive: true });
  });

  it('pages a file larger than WORKSPACE_MAX_FILE_BYTES (a command may write up to SANDBOX_MAX_FILE_MB)', async () => {
    mkdirSync(dir(), { recursive: true });
    const body = Buffer.alloc(21 * 1024 * 1024, 'é'); // 11,010,048 characters of 2 bytes
    const chars = body.length / 2;
    writeFileSync(join(dir(), 'big.log'), Buffer.concat([body, Buffer.from('😀end')]));
    const page = async (offset: number, limit: number) =>
      JSON.parse((await t.call(sessionId, 'READ_FILE', { path: 'big.log', offset, limit })).content);
    expect(await page(0, 3)).toEqual({
      path: 'big.log',
      offset: 0,
      limit: 3,
      totalChars: chars + 5,
      hasMore: true,
      content: 'ééé',
    });
    expect(await page(chars - 1, 4)).toMatchObject({ offset: chars - 1, content: 'é😀e', hasMore: true });
    // An offset inside the emoji starts at the emoji; a page never ends inside it.
    expect(await page(chars + 1, 10)).toMatchObject({ offset: chars, content: '😀end', hasMore: false });
    expect(await page(chars - 1, 2)).toMatchObject({ content: 'é', hasMore: true });
    expect(await page(chars + 5, 10)).toMatchObject({ offset: chars + 5, content: '', hasMore: false });
    expect(await page(chars + 50, 10)).toMatchObject({ content: '', hasMore: false });
    const edit = await t.call(sessionId, 'EDIT_FILE', { path: 'big.log', oldText: 'end', newText: 'END' });
    expect(edit).toMatchObject({ status: 'FAILED', isError: true });
    expect(edit.content).toMatch(
      /"big\.log" has \d+ bytes, more than the WORKSPACE_MAX_FILE_BYTES \(\d+\) EDIT_FILE reads whole; replace it whole with WRITE_FILE/,
    );
    expect((await t.call(sessionId, 'DELETE_FILE', { path: 'big.log' })).status).toBe('COMPLETED');
  });

  it('hides the file tools at DEPENDENCIES for a session without FILE_ROOM', async () => {
    const plain = await t.newSession([]);
    const res = await t.call(plain, 'LIST_FILES', {});
    expect(res).toMatchObject({ status: 'FAILED' });
    expect(res.content).toContain('FILE_ROOM');
  });
});
