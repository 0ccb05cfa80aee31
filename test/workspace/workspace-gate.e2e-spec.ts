import { mkdirSync, mkdtempSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { realpathSync } from 'node:fs';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { describeWithBubblewrap } from '@test/sandbox/sandbox-runner.fixture';
import { waitFor } from '@test/support/wait-for';
import { WorkspaceFiles } from '@app/modules/workspace/workspace-files.service';
import { WorkspaceLocator } from '@app/modules/workspace/workspace.locator';
import { WorkspaceGate } from '@app/modules/workspace/workspace.gate';
import { inOpenedFolder } from '@app/modules/workspace/workspace-descriptor.check';
import { FILE_TOOLS, workspaceRootForSuite, workspaceTenant, type WorkspaceTenant } from './workspace-test-kit';

/**
 * A command can swap a folder of its workspace for a symlink between the moment the gateway checks a path and the
 * moment it uses it. Two guards: file operations wait while a command runs in the workspace (nothing of a command
 * outlives it), and what was opened is checked again through its descriptor.
 */
const MAX_BYTES = 1024 * 1024;
/** A command that holds its workspace until the test lets it go (see `go`), however slow the machine. */
const UNTIL_GO = 'until [ -e go ]; do sleep 0.05; done';

describeWithBubblewrap('workspace files and commands never race (real bubblewrap)', () => {
  const workspaceRoot = workspaceRootForSuite();
  const suite = gatewayForSuite('sqlite', {
    WORKSPACE_ROOT: workspaceRoot,
    SANDBOX_TIMEOUT_MS: '10000',
    WORKSPACE_MAX_BYTES: String(MAX_BYTES),
  });
  let t: WorkspaceTenant;
  let sessionId: string;

  /** Waits for the `command.started` event of a command line containing `marker` in `session`. */
  async function commandStarted(session: string, marker: string): Promise<void> {
    await waitFor(
      async () => {
        const events = await suite.gw.http
          .get(`/api/v1/sessions/${session}/events?limit=1000`)
          .set(t.runtime)
          .expect(200);
        return events.body.items.some(
          (e: { type: string; data: { command?: string } }) =>
            e.type === 'command.started' && e.data.command?.includes(marker),
        );
      },
      { timeoutMs: 10_000, intervalMs: 20, description: `the command "${marker}" started` },
    );
  }

  /** Lets a command running {@link UNTIL_GO} in `session` end (written from outside: a file tool would wait for it). */
  const go = (session: string) =>
    writeFileSync(join(suite.gw.app.get(WorkspaceLocator).dirOf('t-gate', session), 'go'), '');

  beforeAll(async () => {
    t = await workspaceTenant(suite.gw, 't-gate', [...FILE_TOOLS, 'RUN_COMMAND']);
    sessionId = await t.newSession(['SANDBOX', 'FILE_ROOM']);
  });

  it('nothing a command starts outlives it (a background process is gone with the sandbox)', async () => {
    const res = await t.call(sessionId, 'RUN_COMMAND', { command: '(sleep 1; echo late > late.txt) & echo started' });
    expect(JSON.parse(res.content)).toMatchObject({ exitCode: 0, stdout: 'started\n' });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect((await t.call(sessionId, 'READ_FILE', { path: 'late.txt' })).status).toBe('FAILED');
  });

  it('a file download waits for the command running in the workspace, then reads what it left', async () => {
    const command = t.call(sessionId, 'RUN_COMMAND', { command: 'sleep 1; echo done > marker.txt' });
    await commandStarted(sessionId, 'marker.txt');
    const download = await suite.gw.http
      .get(`/api/v1/sessions/${sessionId}/files/content?path=marker.txt`)
      .set(t.runtime)
      .expect(200);
    expect(download.body.toString()).toBe('done\n');
    expect((await command).status).toBe('COMPLETED');
  });

  it("measures a command's room once it has the workspace: a file that landed while it waited is not room it may fill", async () => {
    const session = await t.newSession(['SANDBOX', 'FILE_ROOM']);
    const landed = Math.floor(MAX_BYTES * 0.6);
    const first = t.call(session, 'RUN_COMMAND', { command: `${UNTIL_GO} # holds the workspace` });
    await commandStarted(session, 'holds the workspace');
    // Staged now; it lands once the first command gives the workspace back, before the second command runs.
    const gateRuns = jest.spyOn(suite.gw.app.get(WorkspaceGate), 'run');
    const upload = suite.gw.http
      .put(`/api/v1/sessions/${session}/files/content?path=landed.bin`)
      .set(t.runtime)
      .set('content-type', 'application/octet-stream')
      .send(Buffer.alloc(landed, 0x61))
      .then((res) => res);
    // Staged, its landing asks for the workspace and waits: a command asking after it comes after it.
    try {
      await waitFor(() => gateRuns.mock.calls.some(([, kind]) => kind === 'files'), {
        description: 'the upload to ask for the workspace',
      });
    } finally {
      gateRuns.mockRestore();
    }
    const second = t.call(session, 'RUN_COMMAND', { command: 'head -c 700000 /dev/zero > big.bin; echo exit=$?' });
    go(session);
    expect((await upload).status).toBe(201);
    expect((await first).status).toBe('COMPLETED');
    const answer = JSON.parse((await second).content);
    // Room for 0.4 MiB was left: the file stops there (RLIMIT_FSIZE), and the workspace is within its quota.
    expect(answer.workspaceOverQuota).toBeUndefined();
    const dir = suite.gw.app.get(WorkspaceLocator).dirOf('t-gate', session);
    expect(statSync(join(dir, 'big.bin')).size).toBeLessThanOrEqual(MAX_BYTES - landed);
    expect(answer.stdout).not.toBe('exit=0\n');
  });

  it('a file tool whose budget ran out while it waited for a command does nothing afterwards', async () => {
    const session = await t.newSession(['SANDBOX', 'FILE_ROOM']);
    await t.call(session, 'WRITE_FILE', { path: 'keep.txt', content: 'kept' });
    const tools = (await suite.gw.http.get('/api/v1/admin/tools?q=DELETE_FILE').set(suite.gw.admin).expect(200)).body
      .items as Array<{ id: string; name: string }>;
    const deleteTool = tools.find((tool) => tool.name === 'DELETE_FILE')!;
    await suite.gw.http
      .patch(`/api/v1/admin/tools/${deleteTool.id}`)
      .set(suite.gw.admin)
      .send({ timeoutMs: 1000 })
      .expect(200);
    try {
      const command = t.call(session, 'RUN_COMMAND', { command: `${UNTIL_GO} # holds the workspace` });
      await commandStarted(session, 'holds the workspace');
      const deletion = await t.call(session, 'DELETE_FILE', { path: 'keep.txt' });
      expect(deletion).toMatchObject({ status: 'FAILED', isError: true });
      expect(deletion.content).toContain('timed out');
      go(session);
      expect((await command).status).toBe('COMPLETED');
      // The deletion, answered FAILED, must not happen once the workspace is free: a command waits for it to end.
      const after = await t.call(session, 'RUN_COMMAND', { command: 'cat keep.txt' });
      expect(JSON.parse(after.content)).toMatchObject({ exitCode: 0, stdout: 'kept' });
    } finally {
      go(session);
      await suite.gw.http
        .patch(`/api/v1/admin/tools/${deleteTool.id}`)
        .set(suite.gw.admin)
        .send({ timeoutMs: null })
        .expect(200);
    }
  });

  it('refuses a file that an opened descriptor shows outside the workspace, whatever the checked path said', async () => {
    const root = realpathSync(suite.gw.app.get(WorkspaceLocator).dirOf('t-gate', sessionId));
    const outside = mkdtempSync(join(tmpdir(), 'gw-outside-'));
    writeFileSync(join(outside, 'secret.txt'), 'not yours');
    symlinkSync(outside, join(root, 'swapped'));
    // As if `swapped` had been a folder when the path was checked, and a symlink when the file was opened.
    const checked = { relative: 'swapped/secret.txt', real: join(root, 'swapped', 'secret.txt'), root };
    await expect(suite.gw.app.get(WorkspaceFiles).readWhole(checked)).rejects.toThrow(/leads out of the workspace/);
    const refuse = () => new Error('refused');
    await expect(inOpenedFolder(join(root, 'swapped'), root, refuse, async () => 'used')).rejects.toThrow('refused');
    mkdirSync(join(outside, 'deeper'));
    await expect(inOpenedFolder(join(root, 'swapped', 'deeper'), root, refuse, async () => 'used')).rejects.toThrow(
      'refused',
    );
    mkdirSync(join(root, 'inside'));
    await expect(inOpenedFolder(join(root, 'inside'), root, refuse, async (f) => f)).resolves.toMatch(
      /^\/proc\/self\/fd\/\d+$/,
    );
  });
});
