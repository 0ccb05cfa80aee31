/**
 * Sandbox start-up cost: `true` run by SandboxRunner (chown of the workspace, private mount stage, setpriv,
 * bubblewrap, prlimit, /bin/sh) against a plain spawn('/bin/true'), one at a time. Prints medians and ratio.
 * Run: npm run bench:sandbox   (ROUNDS=n to change the 40 measured rounds)
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { loadGatewayConfig } from '@app/config/gateway-config';
import { SandboxRunner } from '@app/modules/sandbox/sandbox-runner.service';
import { findExecutable } from '@app/modules/sandbox/sandbox-host.probe';
import { formatSummary, summarize, timeSequential } from './support/latency';

const ROUNDS = Number(process.env.ROUNDS ?? 40);
const WARMUP = 5;

function spawnTrue(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/true', [], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

async function main(): Promise<void> {
  const runner = new SandboxRunner(loadGatewayConfig({ NODE_ENV: 'test' }));
  await runner.onModuleInit();
  if (!runner.available()) throw new Error(`sandbox unavailable: ${runner.unavailableReason()}`);
  const workspace = mkdtempSync(join(os.tmpdir(), 'gw-sandbox-bench-'));
  try {
    const bwrap = findExecutable('bwrap')!;
    console.log('Sandbox start-up benchmark');
    console.log(
      `setup: node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(2)}, ` +
        `${execFileSync(bwrap, ['--version']).toString().trim()}, gateway uid ${process.getuid?.()}` +
        (process.getuid?.() === 0 ? ' (root: chown + private mount stage + setpriv to uid 65534)' : '') +
        `, ${ROUNDS} rounds after ${WARMUP} warm-up, sequential`,
    );
    const plain = summarize(await timeSequential(ROUNDS, WARMUP, spawnTrue));
    const sandboxed = summarize(
      await timeSequential(ROUNDS, WARMUP, async () => {
        const result = await runner.run({ workspaceDir: workspace, command: 'true' });
        if (result.outcome !== 'EXITED' || result.exitCode !== 0) throw new Error(JSON.stringify(result));
      }),
    );
    console.log(formatSummary("spawn('/bin/true')", plain));
    console.log(formatSummary("SandboxRunner.run('true')", sandboxed));
    console.log(`ratio of medians: ${(sandboxed.p50 / plain.p50).toFixed(1)}x`);
  } finally {
    await runner.onApplicationShutdown();
    rmSync(workspace, { recursive: true, force: true });
  }
}

void main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
