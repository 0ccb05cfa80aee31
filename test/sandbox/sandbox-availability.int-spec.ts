import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { DomainError } from '@app/common/errors/domain-error';
import { SandboxErrorCode } from '@app/modules/sandbox/sandbox.errors';
import { describeWithBubblewrap, startedSandboxRunner, tempFolder } from './sandbox-runner.fixture';

describe('SandboxRunner availability', () => {
  it('SANDBOX_DRIVER=none: unavailable, says why, and refuses to run (never unsandboxed)', async () => {
    const runner = await startedSandboxRunner({ SANDBOX_DRIVER: 'none' });
    const ws = tempFolder('none');
    try {
      expect(runner.available()).toBe(false);
      expect(runner.unavailableReason()).toMatch(/SANDBOX_DRIVER=none/);
      const refused = runner.run({ workspaceDir: ws.path, command: 'touch ran' });
      await expect(refused).rejects.toBeInstanceOf(DomainError);
      await expect(refused).rejects.toMatchObject({ code: SandboxErrorCode.SANDBOX_UNAVAILABLE });
    } finally {
      ws.remove();
    }
  });
});

describe('SandboxRunner whose bubblewrap fails its self-test', () => {
  let bin: { path: string; remove: () => void };
  let warn: jest.SpyInstance;
  const path = process.env.PATH;
  beforeEach(() => {
    bin = tempFolder('fake-bwrap');
    chmodSync(bin.path, 0o755); // a root gateway runs bubblewrap as the sandbox user
    // A bubblewrap that refuses, naming a host path, as a real one does ("Can't mkdir /tmp/...: Permission denied").
    writeFileSync(
      join(bin.path, 'bwrap'),
      '#!/bin/sh\necho "bwrap: Can\'t mkdir /srv/host-secret/gw-check: Permission denied" >&2\nexit 1\n',
      { mode: 0o755 },
    );
    process.env.PATH = `${bin.path}:${path}`;
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => {
    process.env.PATH = path;
    warn.mockRestore();
    bin.remove();
  });

  it('says so without the host paths of what failed, which only the log has', async () => {
    const runner = await startedSandboxRunner({ SANDBOX_DRIVER: 'bwrap' });
    try {
      expect(runner.available()).toBe(false);
      expect(runner.unavailableReason()).toMatch(/^bubblewrap is installed but could not start a sandbox on this host/);
      expect(runner.unavailableReason()).not.toContain('/srv/host-secret');
      const logged = warn.mock.calls.map((call) => String(call[0])).join('\n');
      expect(logged).toContain("Commands cannot run: bubblewrap's self-test failed");
      expect(logged).toContain('/srv/host-secret/gw-check');
    } finally {
      await runner.onApplicationShutdown();
    }
  });
});

describeWithBubblewrap('SandboxRunner request checks (real bubblewrap)', () => {
  it('refuses a relative workspace, a mount outside /skills, a link as workspace and a bad timeout', async () => {
    const runner = await startedSandboxRunner();
    const ws = tempFolder('checks');
    try {
      const cases = [
        { workspaceDir: 'relative/ws', command: 'true' },
        { workspaceDir: ws.path, command: 'true', readOnlyMounts: [{ hostPath: ws.path, sandboxPath: '/etc' }] },
        {
          workspaceDir: ws.path,
          command: 'true',
          readOnlyMounts: [{ hostPath: ws.path, sandboxPath: '/skills/../workspace' }],
        },
        { workspaceDir: ws.path, command: '' },
        { workspaceDir: ws.path, command: 'true', timeoutMs: 0 },
      ];
      for (const request of cases) {
        await expect(runner.run(request)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
      }
    } finally {
      await runner.onApplicationShutdown();
      ws.remove();
    }
  });
});

describeWithBubblewrap('SandboxRunner over a long life (real bubblewrap)', () => {
  it('still runs commands after a /tmp cleaner removed its stage folder (a root gateway stages mounts there)', async () => {
    const runner = await startedSandboxRunner();
    const ws = tempFolder('stage');
    try {
      expect(runner.unavailableReason()).toBe('');
      // This runner's own folder (CI runs the gateway as root, as here): nothing of other runners is touched.
      const stageDir = (runner as unknown as { host: { asRoot?: { stageDir: string } } }).host.asRoot?.stageDir;
      expect(stageDir).toBeDefined();
      // systemd-tmpfiles removes folders of /tmp unchanged for 10 days, and the stage folder never changes on the host.
      rmSync(stageDir!, { recursive: true });
      const result = await runner.run({ workspaceDir: ws.path, command: 'echo ok' });
      expect(result).toMatchObject({ outcome: 'EXITED', exitCode: 0, stdout: 'ok\n' });
    } finally {
      await runner.onApplicationShutdown();
      ws.remove();
    }
  });
});
