import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadGatewayConfig } from '@app/config/gateway-config';
import { SandboxRunner } from '@app/modules/sandbox/sandbox-runner.service';
import { findExecutable } from '@app/modules/sandbox/sandbox-host.probe';

/**
 * `describe` for suites that need real bubblewrap (`apt-get install bubblewrap`; CI installs it). Without it the suite
 * fails at once with that instruction instead of each test failing on an unavailable runner.
 */
export function describeWithBubblewrap(name: string, body: () => void): void {
  describe(name, () => {
    beforeAll(() => {
      if (!findExecutable('bwrap'))
        throw new Error(`${name}: bubblewrap is not installed; apt-get install bubblewrap (the sandbox needs it)`);
    });
    body();
  });
}

/** A started runner over the real host, with SANDBOX_* settings from `env` (defaults otherwise). */
export async function startedSandboxRunner(env: Record<string, string> = {}): Promise<SandboxRunner> {
  const runner = new SandboxRunner(loadGatewayConfig({ NODE_ENV: 'test', ...env }));
  await runner.onModuleInit();
  return runner;
}

/** A fresh folder under the OS temp dir, removed by the returned function. */
export function tempFolder(prefix: string): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), `gw-sbx-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Host processes whose command line contains `token` (a sandboxed command that names it in a comment). */
export function processesNaming(token: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(token)) pids.push(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return pids;
}

/** A token unique to one test, to find the processes of its command on the host. */
export function uniqueToken(label: string): string {
  return `sbx-${label}-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
