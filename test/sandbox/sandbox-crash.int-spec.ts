import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '@test/support/wait-for';
import { describeWithBubblewrap, processesNaming, tempFolder, uniqueToken } from './sandbox-runner.fixture';

describeWithBubblewrap('SandboxRunner when the gateway dies (real bubblewrap)', () => {
  it('a gateway killed with SIGKILL mid-command takes the whole sandbox with it', async () => {
    const ws = tempFolder('crash');
    const token = uniqueToken('crash');
    const child = spawn(
      process.execPath,
      [
        '-r',
        '@swc-node/register',
        join(__dirname, 'fixtures/sandbox-run.child.ts'),
        ws.path,
        `# ${token}\ntouch running; sleep 600 & sleep 601`,
      ],
      { cwd: join(__dirname, '../..'), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await waitFor(() => existsSync(join(ws.path, 'running')), {
        timeoutMs: 20_000,
        description: 'the command to run',
      });
      expect(processesNaming(token).length).toBeGreaterThanOrEqual(3);
      child.kill('SIGKILL');
      await waitFor(() => processesNaming(token).length === 0, {
        timeoutMs: 10_000,
        description: 'every sandboxed process to end',
      });
    } finally {
      child.kill('SIGKILL');
      ws.remove();
    }
  });
});
