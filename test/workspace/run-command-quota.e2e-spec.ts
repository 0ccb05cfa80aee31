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

  it('stops a file from growing past the room left under WORKSPACE_MAX_BYTES, saying which limit', async () => {
    await t.call(sessionId, 'WRITE_FILE', { path: 'kept.txt', content: 'k'.repeat(1000) });
    const res = await run('head -c 10000 /dev/zero > big.bin');
    expect(res).toMatchObject({ status: 'FAILED', isError: true });
    expect(res.content).toContain('SIGXFSZ');
    expect(res.content).toContain('WORKSPACE_MAX_BYTES');
    expect(sizeOf('big.bin')).toBeLessThanOrEqual(MAX_BYTES - 1000);
  });

  it('in a full workspace a command still reads and deletes, but writes nothing', async () => {
    await run('rm big.bin');
    await t.call(sessionId, 'WRITE_FILE', { path: 'fill.bin', content: 'f'.repeat(MAX_BYTES - 1000) });
    const write = await run('echo more >> kept.txt');
    expect(write.status).toBe('FAILED');
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
    expect(write.status).toBe('FAILED');
    expect(sizeOf('kept.txt')).toBe(1000 + 'more\n'.length);
  });
});
