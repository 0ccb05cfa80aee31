/** A host folder shown read-only inside the sandbox, e.g. a skill's release at `/skills/<name>`. */
import type { LogFields } from '@app/common/logging/log-context';
export interface SandboxMount {
  hostPath: string;
  /** Absolute path inside the sandbox, under `/skills/`. */
  sandboxPath: string;
}

/** One command to run in a fresh sandbox. */
export interface SandboxRunRequest {
  /** Absolute host path, bound read-write at `/workspace` (the working directory). */
  workspaceDir: string;
  /** Shown read-only; each `sandboxPath` under `/skills/`. */
  readOnlyMounts?: SandboxMount[];
  /** Run by `/bin/sh -c` inside the sandbox. */
  command: string;
  /** Wall-time limit; capped by SANDBOX_TIMEOUT_MS (the default when absent). */
  timeoutMs?: number;
  /** The largest file any process may write (RLIMIT_FSIZE, bytes; 0: none may grow); capped by SANDBOX_MAX_FILE_MB. */
  maxFileBytes?: number;
  /** Aborting kills everything the command started; the result is ABORTED. */
  signal?: AbortSignal;
  /** Whose command it is (request, session, call): the gateway's log line about a command that cannot start says so. */
  log?: LogFields;
}

/**
 * How a command ended. EXITED: it exited by itself (any exit code). TIMED_OUT: past its wall-time limit.
 * KILLED: ended by SIGKILL or SIGXFSZ (a limit: memory, or file size for a program that heeds SIGXFSZ again though
 * the sandbox ignores it) or another cause named in `reason`.
 * ABORTED: the caller's signal.
 */
export type SandboxOutcome = 'EXITED' | 'TIMED_OUT' | 'KILLED' | 'ABORTED';

export interface SandboxRunResult {
  /** null when killed. */
  exitCode: number | null;
  /** Each capped at SANDBOX_OUTPUT_MAX_BYTES, cut on a UTF-8 character boundary. */
  stdout: string;
  stderr: string;
  /** Some output was dropped. */
  truncated: boolean;
  durationMs: number;
  outcome: SandboxOutcome;
  /** Plain words when not EXITED, or when output was cut. */
  reason?: string;
  /** The command's shell was killed by SIGXFSZ: a write passed the file-size limit (`maxFileBytes`). */
  killedAtFileLimit?: boolean;
}
