/**
 * RUN_COMMAND of `true` end to end: `POST /sessions/{id}/act` through the in-process gateway (auth, visibility
 * re-check, schema, risk check, journal STARTED + outcome, command.started/finished events, the sandbox, the result
 * store) on SQLite, against the sandbox alone (SandboxRunner.run of `true` on the same workspace) and against a
 * built-in that does no sandboxing (LIST_FILES through act), one at a time. Prints medians and the setup.
 * Run: npm run bench:run-command   (ROUNDS=n to change the 30 measured rounds)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { startTestGateway } from '@test/support/gateway-test-app';
import { workspaceTenant } from '@test/workspace/workspace-test-kit';
import { SandboxRunner } from '@app/modules/sandbox/sandbox-runner.service';
import { WorkspaceLocator } from '@app/modules/workspace/workspace.locator';
import { formatSummary, summarize, timeSequential } from './support/latency';

const ROUNDS = Number(process.env.ROUNDS ?? 30);
const WARMUP = 5;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(os.tmpdir(), 'gw-run-command-bench-'));
  const gw = await startTestGateway(`sqlite:${join(dir, 'gateway.sqlite')}`, {
    WORKSPACE_ROOT: join(dir, 'workspaces'),
  });
  try {
    const sandbox = gw.app.get(SandboxRunner);
    if (!sandbox.available()) throw new Error(`sandbox unavailable: ${sandbox.unavailableReason()}`);
    const t = await workspaceTenant(gw, 't-bench', ['RUN_COMMAND', 'LIST_FILES']);
    const sessionId = await t.newSession(['SANDBOX', 'FILE_ROOM']);
    const act = (name: string, args: Record<string, unknown>) => async () => {
      const result = await t.call(sessionId, name, args);
      if (result.status !== 'COMPLETED') throw new Error(result.content);
    };
    console.log('RUN_COMMAND end-to-end benchmark');
    console.log(
      `setup: node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(2)}, in-process gateway ` +
        `on SQLite (WAL, NORMAL), supertest over loopback, gateway uid ${process.getuid?.()}, ${ROUNDS} rounds after ${WARMUP} warm-up, sequential`,
    );
    const listFiles = summarize(await timeSequential(ROUNDS, WARMUP, act('LIST_FILES', {})));
    const workspaceDir = gw.app.get(WorkspaceLocator).dirOf('t-bench', sessionId);
    const alone = summarize(
      await timeSequential(ROUNDS, WARMUP, async () => {
        const r = await sandbox.run({ workspaceDir, command: 'true' });
        if (r.exitCode !== 0) throw new Error(JSON.stringify(r));
      }),
    );
    const runCommand = summarize(await timeSequential(ROUNDS, WARMUP, act('RUN_COMMAND', { command: 'true' })));
    console.log(formatSummary('act LIST_FILES (no sandbox)', listFiles));
    console.log(formatSummary("SandboxRunner.run('true')", alone));
    console.log(formatSummary("act RUN_COMMAND 'true'", runCommand));
    console.log(
      `act RUN_COMMAND - sandbox alone (medians): ${(runCommand.p50 - alone.p50).toFixed(1)} ms of act, journal and events`,
    );
  } finally {
    await gw.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
