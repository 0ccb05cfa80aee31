import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Readable, Writable } from 'node:stream';
import { SandboxOutputCollector } from './sandbox-output.collector';
import { SANDBOX_ENV, SANDBOX_SECCOMP_FD, SANDBOX_STATUS_FD } from './sandbox-bwrap.args';
import type { SandboxOutcome, SandboxRunResult } from './sandbox.types';

/** What one bubblewrap process needs besides its command line. */
export interface SandboxProcessOptions {
  /** bubblewrap, or the stage chain that execs it (same process: its pid is bubblewrap's). */
  executable: string;
  args: string[];
  /** Seccomp program written to fd 4 (SANDBOX_SECCOMP_FD); undefined: no filter. */
  seccomp?: Buffer;
  timeoutMs: number;
  outputMaxBytes: number;
  signal?: AbortSignal;
}

/** bubblewrap ended before the command started (a mount failed, user namespaces refused, ...). */
export class SandboxStartError extends Error {}

const SIGKILL_STATUS = 128 + 9;
const SIGXFSZ_STATUS = 128 + 25;
/** After the sandbox's init is killed, its pid namespace is torn down by the kernel; this bounds the wait. */
const TEARDOWN_WAIT_MS = 5000;

/**
 * Runs bubblewrap once and supervises it: time limit, abort, capped output. Killing means SIGKILL to the
 * sandbox's pid 1 (its `child-pid` on the status fd): the kernel then kills every process of the pid
 * namespace, and bubblewrap exits only after that, so nothing the command started outlives the result.
 */
export function runBwrapProcess(options: SandboxProcessOptions): Promise<SandboxRunResult> {
  const started = performance.now();
  const child = spawn(options.executable, options.args, {
    cwd: '/',
    // bubblewrap's own environment is what the sandbox's /proc/1/environ shows: never the gateway's.
    env: { ...SANDBOX_ENV },
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', ...(options.seccomp ? (['pipe'] as const) : [])],
  });
  if (options.seccomp) {
    const filterPipe = child.stdio[SANDBOX_SECCOMP_FD] as Writable;
    filterPipe.on('error', () => undefined); // bubblewrap failed before reading it: reported by its exit
    filterPipe.end(options.seccomp);
  }
  const stdout = new SandboxOutputCollector(child.stdout!, options.outputMaxBytes);
  const stderr = new SandboxOutputCollector(child.stderr!, options.outputMaxBytes);
  let initPid: number | undefined;
  let exitStatus: number | undefined;
  let statusText = '';
  (child.stdio[SANDBOX_STATUS_FD] as Readable).on('data', (chunk: Buffer) => {
    statusText += chunk.toString('utf8');
    initPid ??= matchNumber(statusText, /"child-pid"\s*:\s*(\d+)/);
    exitStatus ??= matchNumber(statusText, /"exit-code"\s*:\s*(\d+)/);
  });

  let ended: { outcome: SandboxOutcome; reason: string; outerKilled: boolean } | undefined;
  const killAll = (outcome: SandboxOutcome, reason: string) => {
    if (ended) return;
    ended = { outcome, reason, outerKilled: initPid === undefined };
    if (initPid !== undefined) {
      try {
        process.kill(initPid, 'SIGKILL');
      } catch {
        ended.outerKilled = true;
      }
    }
    // Without the init's pid (not reported yet), killing bubblewrap lets --die-with-parent take the rest.
    if (ended.outerKilled) child.kill('SIGKILL');
    else setTimeout(() => child.kill('SIGKILL'), TEARDOWN_WAIT_MS).unref();
  };
  const timer = setTimeout(
    () => killAll('TIMED_OUT', `the command ran past its time limit of ${options.timeoutMs} ms and was killed`),
    options.timeoutMs,
  );
  const onAbort = () => killAll('ABORTED', 'the call was aborted; the command was killed');
  options.signal?.addEventListener('abort', onAbort, { once: true });

  return new Promise<SandboxRunResult>((resolve, reject) => {
    child.on('error', (error) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      reject(new SandboxStartError(`bubblewrap could not be started: ${error.message}`));
    });
    child.on('close', () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      void (async () => {
        if (ended?.outerKilled && initPid !== undefined) await waitUntilGone(initPid);
        const durationMs = Math.round(performance.now() - started);
        const out = { stdout: stdout.text(), stderr: stderr.text(), durationMs };
        const truncated = stdout.truncated || stderr.truncated;
        const cutNote = truncated
          ? `output past ${options.outputMaxBytes} bytes per stream was cut (the stream was closed)`
          : undefined;
        if (ended) {
          return resolve({ ...out, exitCode: null, truncated, outcome: ended.outcome, reason: ended.reason });
        }
        // bubblewrap reports its own set-up failures (mounts, namespaces) as "bwrap: ..." with status 1.
        if (initPid === undefined || (exitStatus === 1 && out.stderr.startsWith('bwrap: '))) {
          const why = out.stderr.trim().split('\n')[0] || 'no reason given';
          return reject(new SandboxStartError(`bubblewrap failed to set up the sandbox: ${why}`));
        }
        if (exitStatus === undefined) {
          return resolve({ ...out, exitCode: null, truncated, outcome: 'KILLED', reason: 'the sandbox was killed' });
        }
        const limitKill = describeLimitKill(exitStatus);
        if (limitKill) {
          const atFileLimit = exitStatus === SIGXFSZ_STATUS ? { killedAtFileLimit: true } : {};
          return resolve({ ...out, exitCode: null, truncated, outcome: 'KILLED', reason: limitKill, ...atFileLimit });
        }
        resolve({ ...out, exitCode: exitStatus, truncated, outcome: 'EXITED', reason: cutNote });
      })();
    });
  });
}

/** The command's shell ended by a signal that a limit sends. Other statuses are ordinary exit codes. */
function describeLimitKill(status: number): string | undefined {
  if (status === SIGXFSZ_STATUS)
    return 'killed by SIGXFSZ: a write passed the largest file this command may write (SANDBOX_MAX_FILE_MB, or the room left under WORKSPACE_MAX_BYTES)';
  if (status === SIGKILL_STATUS) return 'killed by SIGKILL (for example out of memory)';
  return undefined;
}

function matchNumber(text: string, pattern: RegExp): number | undefined {
  const match = pattern.exec(text);
  return match ? Number(match[1]) : undefined;
}

/** A zombie counts as gone: the kernel kills the whole pid namespace before its init becomes one. */
async function waitUntilGone(pid: number): Promise<void> {
  const deadline = performance.now() + TEARDOWN_WAIT_MS;
  while (isRunning(pid) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}

function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX]/s.test(stat);
  } catch {
    return false;
  }
}
