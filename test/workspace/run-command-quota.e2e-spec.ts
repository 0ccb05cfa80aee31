import { statSync } from 'node:fs';
import { join } from 'node:path';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { describeWithBubblewrap } from '@test/sandbox/sandbox-runner.fixture';
import { WorkspaceLocator } from '@app/modules/workspace/workspace.locator';
import { FILE_TOOLS, workspaceRootForSuite, workspaceTenant, type WorkspaceTenant } from './workspace-test-kit';

const MAX_BYTES = 4096;
const MAX_FILES = 5;

describeWithBubblewrap('RUN_COMMAND within the workspace quota (real bubblewrap)', () => {
  const suite = gatewayForSuite('sqlite', {
    WORKSPACE_ROOT: workspaceRootForSuite(),
    WORKSPACE_MAX_BYTES: String(MAX_BYTES),
    WORKSPACE_MAX_FILES: String(MAX_FILES),
    SANDBOX_TIMEOUT_MS: '5000',
  });
  let t: WorkspaceTenant;
  let sessionId: string;
  const run = (command: string) => t.call(sessionId, 'RUN_COMMAND', { command });
  const sizeOf = (path: string) =>
    statSync(join(suite.gw.app.get(WorkspaceLocator).dirOf('t-quota', sessionId), path)).size;

  beforeAll(async () => {
    t = await workspaceTenant(suite.gw, 't-quota', [...FILE_TOOLS, 'RUN_COMMAND']);
    sessionId = await t.newSession(['SANDBOX', 'FILE_ROOM']);
  });

  it('stops a file at the room left under WORKSPACE_MAX_BYTES and says so, though the command goes on', async () => {
    await t.call(sessionId, 'WRITE_FILE', { path: 'kept.txt', content: 'k'.repeat(1000) });
    const res = await run('head -c 10000 /dev/zero > big.bin; echo went on');
    expect(res.status).toBe('COMPLETED');
    const answer = JSON.parse(res.content);
    expect(answer).toMatchObject({ exitCode: 0, stdout: 'went on\n' });
    expect(answer.stderr).toContain('File too large');
    expect(sizeOf('big.bin')).toBe(MAX_BYTES - 1000);
    expect(answer.workspaceQuotaHit).toBe(
      `Workspace quota hit: this command could write no file past 3096 bytes, the room left under WORKSPACE_MAX_BYTES (4096) when it started (the limit is on a file's size, not on how much it grows); "big.bin" (3096 bytes) stopped at 3096 bytes and may be incomplete; the workspace now holds 4096 of 4096 bytes (0 left); free space by deleting files no longer needed (DELETE_FILE, or rm with RUN_COMMAND) and run it again; WRITE_FILE and EDIT_FILE measure the whole workspace instead, so they can still add to a file what fits in the room left.`,
    );
    // The session's event stream says so too: a runtime watching it learns the command's output may be incomplete.
    const events = await suite.gw.http
      .get(`/api/v1/sessions/${sessionId}/events?limit=1000`)
      .set(t.runtime)
      .expect(200);
    const finished = events.body.items.filter((e: { type: string }) => e.type === 'command.finished');
    expect(finished.at(-1).data).toMatchObject({ outcome: 'EXITED', workspaceQuotaHit: answer.workspaceQuotaHit });
  });

  it('names a file cut at the limit by a program that keeps quiet about it', async () => {
    await run('rm big.bin');
    const res = await run('{ head -c 10000 /dev/zero 2>/dev/null; true; } > quiet.bin');
    expect(JSON.parse(res.content)).toMatchObject({ exitCode: 0, stderr: '' });
    expect(JSON.parse(res.content).workspaceQuotaHit).toContain('"quiet.bin" (3096 bytes) stopped at 3096 bytes');
    await run('rm quiet.bin');
  });

  it('appending to a file larger than the room left is refused with the file, the room and how to free it', async () => {
    await t.call(sessionId, 'WRITE_FILE', { path: 'log.txt', content: `${'l'.repeat(1996)}end\n` });
    // 1096 bytes are left, enough for the line, but a command may grow no file past 1096 bytes in all.
    const res = await run('echo line >> log.txt; echo status=$?');
    expect(res.status).toBe('COMPLETED');
    const answer = JSON.parse(res.content);
    expect(answer).toMatchObject({ exitCode: 0, stdout: 'status=1\n' });
    expect(answer.workspaceQuotaHit).toContain('could write no file past 1096 bytes');
    expect(answer.workspaceQuotaHit).toContain(
      '"log.txt" (2000 bytes) already held that much, so nothing could be added',
    );
    expect(answer.workspaceQuotaHit).toContain(
      'now holds 3000 of 4096 bytes (1096 left); free space by deleting files',
    );
    expect(sizeOf('log.txt')).toBe(2000);
    // What the answer offers: a file tool adds what fits.
    const edit = await t.call(sessionId, 'EDIT_FILE', { path: 'log.txt', oldText: 'end\n', newText: 'end\nline\n' });
    expect(edit).toMatchObject({ status: 'COMPLETED' });
    await run('rm log.txt');
  });

  it('in a full workspace a command still reads and deletes, but writes nothing', async () => {
    await t.call(sessionId, 'WRITE_FILE', { path: 'fill.bin', content: 'f'.repeat(MAX_BYTES - 1000) });
    const write = await run('echo more >> kept.txt');
    expect(JSON.parse(write.content)).toMatchObject({ exitCode: 1 });
    expect(JSON.parse(write.content).workspaceQuotaHit).toContain('"kept.txt" (1000 bytes) already held that much');
    expect(sizeOf('kept.txt')).toBe(1000);
    const clean = await run('wc -c < kept.txt; rm fill.bin; ls');
    expect(clean.status).toBe('COMPLETED');
    expect(JSON.parse(clean.content)).toMatchObject({ exitCode: 0, stdout: '1000\nkept.txt\n' });
    expect(JSON.parse(clean.content).workspaceOverQuota).toBeUndefined();
    expect(JSON.parse((await run('echo more >> kept.txt')).content)).toMatchObject({ exitCode: 0 });
  });

  it('answers a command that leaves more entries than WORKSPACE_MAX_FILES with workspaceOverQuota', async () => {
    const res = await run('touch a b c d e f');
    expect(res.status).toBe('COMPLETED');
    expect(JSON.parse(res.content).workspaceOverQuota).toMatch(
      /^the workspace holds more than 5 entries, WORKSPACE_MAX_FILES is 5: no file can grow/,
    );
    const refused = await t.call(sessionId, 'WRITE_FILE', { path: 'g.txt', content: 'g' });
    expect(refused.status).toBe('FAILED');
    // Past the entry limit the walk stops (bytes are not counted): the next command may grow no file at all.
    const write = await run('echo more >> kept.txt');
    expect(JSON.parse(write.content).workspaceQuotaHit).toContain('could write no file past 0 bytes');
    expect(sizeOf('kept.txt')).toBe(1000 + 'more\n'.length);
  });
});
