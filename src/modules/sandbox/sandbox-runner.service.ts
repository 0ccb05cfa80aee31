import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DomainError } from '@app/common/errors/domain-error';
import { redactText } from '@app/common/redaction';
import { GATEWAY_CONFIG, type GatewayConfig } from '@app/config/gateway-config';
import { SandboxErrorCode } from './sandbox.errors';
import type { SandboxRunRequest, SandboxRunResult } from './sandbox.types';
import {
  closeInheritedFds,
  IGNORE_FILE_SIZE_SIGNAL,
  SANDBOX_STAGE_SCRIPT,
  stagedMount,
  stagedWorkspace,
} from './sandbox-stage.script';
import { buildSeccompFilter } from './sandbox-seccomp.filter';
import {
  buildBwrapArgs,
  probeSystemFolders,
  SANDBOX_SECCOMP_FD,
  SANDBOX_STATUS_FD,
  type SandboxSystemEntry,
} from './sandbox-bwrap.args';
import { runBwrapProcess, SandboxStartError } from './sandbox-bwrap.process';
import { findExecutable, sandboxHostUser } from './sandbox-host.probe';
import { validateSandboxRequest } from './sandbox-request.validation';
import { giveWorkspaceTo } from './sandbox-workspace.owner';
import { fieldLine } from '@app/common/logging/log-context';

const MIB = 1024 * 1024;
/** What a command that could not start is answered (the details, which name host paths, go to the log only). */
const SANDBOX_START_FAILED =
  'The sandbox could not start the command, so nothing ran: a fault of the gateway host, not of the command. ' +
  'Run it again later; if it keeps failing, the gateway operator finds the cause in the gateway log.';

interface SandboxHost {
  bwrapPath: string;
  bashPath: string;
  prlimitPath: string;
  /** Undefined on CPU architectures whose syscall numbers the filter does not carry. */
  seccomp: Buffer | undefined;
  system: SandboxSystemEntry[];
  /** Set when the gateway is root: bubblewrap then runs as this user, reached through the stage chain. */
  asRoot?: {
    user: { uid: number; gid: number };
    chownPath: string;
    unsharePath: string;
    setprivPath: string;
    stageDir: string;
  };
}

/**
 * Runs shell commands in a bubblewrap sandbox (RUN_COMMAND). Availability is decided once at start:
 * SANDBOX_DRIVER, the binaries, and one real sandboxed `true`. Unavailable means refused, never unsandboxed.
 */
/** Why commands cannot run when bubblewrap's self-test failed: what failed is in the log (it names host paths). */
const SELF_TEST_FAILED =
  "bubblewrap is installed but could not start a sandbox on this host (its self-test failed; often unprivileged user namespaces are disabled): the gateway's start-up log says why";

@Injectable()
export class SandboxRunner implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(SandboxRunner.name);
  private host: SandboxHost | undefined;
  private whyUnavailable = 'the sandbox has not been checked yet (start-up is not finished)';

  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {}

  async onModuleInit(): Promise<void> {
    const driver = this.config.sandbox.driver;
    if (driver === 'none') {
      this.whyUnavailable = 'SANDBOX_DRIVER=none: commands are not run (set SANDBOX_DRIVER=bwrap to enable them)';
      return;
    }
    const bwrapPath = findExecutable('bwrap');
    const prlimitPath = findExecutable('prlimit');
    const helpers = ['chown', 'unshare', 'setpriv', 'bash'].map((name) => findExecutable(name));
    if (!bwrapPath) {
      this.whyUnavailable =
        'bubblewrap is not installed (apt-get install bubblewrap), so commands cannot be sandboxed' +
        (driver === 'bwrap' ? ' although SANDBOX_DRIVER=bwrap' : '');
    } else if (!prlimitPath?.startsWith('/usr/') || helpers.includes(undefined)) {
      this.whyUnavailable =
        'prlimit, setpriv, unshare (util-linux), chown (coreutils) and bash must be installed, prlimit under /usr';
    } else {
      const [chownPath, unsharePath, setprivPath, bashPath] = helpers as string[];
      const user = sandboxHostUser();
      const seccomp = buildSeccompFilter();
      const candidate: SandboxHost = { bwrapPath, bashPath, prlimitPath, seccomp, system: probeSystemFolders() };
      if (user) {
        const stageDir = await mkdtemp(join(tmpdir(), 'gw-sandbox-stage-'));
        await chmod(stageDir, 0o755);
        candidate.asRoot = { user, chownPath, unsharePath, setprivPath, stageDir };
      }
      const failure = await this.selfTest(candidate);
      if (failure === undefined) this.host = candidate;
      else {
        // What failed names host paths (the binaries, temporary folders): the log has it, the reason given to
        // sessions, models and explain does not.
        this.logger.warn(`Commands cannot run: bubblewrap's self-test failed: ${failure}`);
        this.whyUnavailable = SELF_TEST_FAILED;
        if (candidate.asRoot) await rm(candidate.asRoot.stageDir, { recursive: true, force: true });
        return;
      }
    }
    if (!this.host) this.logger.warn(`Commands cannot run: ${this.whyUnavailable}`);
  }

  async onApplicationShutdown(): Promise<void> {
    const stageDir = this.host?.asRoot?.stageDir;
    this.host = undefined;
    this.whyUnavailable = 'the gateway is shutting down';
    if (stageDir) await rm(stageDir, { recursive: true, force: true });
  }

  available(): boolean {
    return this.host !== undefined;
  }

  unavailableReason(): string {
    return this.host ? '' : this.whyUnavailable;
  }

  async run(req: SandboxRunRequest): Promise<SandboxRunResult> {
    const host = this.host;
    if (!host) throw new DomainError(SandboxErrorCode.SANDBOX_UNAVAILABLE, this.whyUnavailable);
    const timeoutMs = validateSandboxRequest(req, this.config.sandbox.timeoutMs);
    if (req.signal?.aborted) {
      const reason = 'the call was aborted before the command started';
      return { exitCode: null, stdout: '', stderr: '', truncated: false, durationMs: 0, outcome: 'ABORTED', reason };
    }
    try {
      return await this.runOn(host, req, timeoutMs);
    } catch (error) {
      if (error instanceof DomainError) throw error;
      // Raw errors (bubblewrap's stderr, spawn, chown) name host paths: the log keeps them, with those paths hidden.
      const detail = this.withoutHostPaths(redactText((error as Error).message ?? String(error)), host, req);
      const what = error instanceof SandboxStartError ? 'could not start' : 'failed before it started';
      this.logger.warn(fieldLine(`A sandboxed command ${what}: ${detail}`, req.log));
      throw new DomainError(SandboxErrorCode.SANDBOX_UNAVAILABLE, SANDBOX_START_FAILED);
    }
  }

  /** `text` with the workspace, the skill mounts, the stage folder and WORKSPACE_ROOT named, not shown. */
  private withoutHostPaths(text: string, host: SandboxHost, req: SandboxRunRequest): string {
    const paths: Array<[string, string]> = [
      [req.workspaceDir, '<workspace>'],
      ...(req.readOnlyMounts ?? []).map((m): [string, string] => [m.hostPath, `<source of ${m.sandboxPath}>`]),
      ...(host.asRoot ? [[host.asRoot.stageDir, '<sandbox stage>'] as [string, string]] : []),
      [this.config.workspace.root, '<WORKSPACE_ROOT>'],
    ];
    // Longest first: the workspace lies under WORKSPACE_ROOT and must be named as the workspace.
    paths.sort((a, b) => b[0].length - a[0].length);
    return paths.reduce((out, [path, name]) => (path ? out.split(path).join(name) : out), text);
  }

  private async runOn(host: SandboxHost, req: SandboxRunRequest, timeoutMs: number): Promise<SandboxRunResult> {
    const { sandbox } = this.config;
    const mounts = req.readOnlyMounts ?? [];
    const root = host.asRoot;
    if (root) {
      // Made again if gone: tmp cleaners (systemd-tmpfiles: 10 days) remove it, as it never changes on the host.
      if (await mkdir(root.stageDir, { recursive: true })) await chmod(root.stageDir, 0o755);
      await giveWorkspaceTo(root.chownPath, req.workspaceDir, root.user);
    }
    const bwrapArgs = buildBwrapArgs({
      system: host.system,
      workspaceSource: root ? stagedWorkspace(root.stageDir) : req.workspaceDir,
      mounts: mounts.map((m, i) => ({
        source: root ? stagedMount(root.stageDir, i) : m.hostPath,
        sandboxPath: m.sandboxPath,
      })),
      command: req.command,
      prlimitPath: host.prlimitPath,
      seccompFd: host.seccomp ? SANDBOX_SECCOMP_FD : undefined,
      limits: {
        memoryBytes: sandbox.memoryMb * MIB,
        maxProcesses: sandbox.maxProcesses,
        maxFileBytes: Math.min(sandbox.maxFileMb * MIB, req.maxFileBytes ?? Infinity),
        tmpBytes: sandbox.maxFileMb * MIB,
      },
    });
    const prelude = `${IGNORE_FILE_SIZE_SIGNAL}\n${closeInheritedFds(host.seccomp ? SANDBOX_SECCOMP_FD : SANDBOX_STATUS_FD)}`;
    const [executable, args] = root
      ? [
          root.unsharePath,
          [
            ...[
              '--mount',
              '--propagation',
              'private',
              '--',
              host.bashPath,
              '-c',
              `${prelude}\n${SANDBOX_STAGE_SCRIPT}`,
              'bash',
            ],
            ...[root.stageDir, req.workspaceDir, ...mounts.map((m) => m.hostPath), '--'],
            ...[root.setprivPath, `--reuid=${root.user.uid}`, `--regid=${root.user.gid}`, '--clear-groups', '--'],
            ...[host.bwrapPath, ...bwrapArgs],
          ],
        ]
      : [host.bashPath, ['-c', `${prelude}\nexec "$@"`, 'bash', host.bwrapPath, ...bwrapArgs]];
    return runBwrapProcess({
      executable,
      args,
      seccomp: host.seccomp,
      timeoutMs,
      outputMaxBytes: sandbox.outputMaxBytes,
      signal: req.signal,
    });
  }

  /**
   * One real sandboxed command: bubblewrap may be installed yet refused (no user namespaces). @returns what failed
   * (for the log only), or undefined when the sandbox works.
   */
  private async selfTest(host: SandboxHost): Promise<string | undefined> {
    const dir = await mkdtemp(join(tmpdir(), 'gw-sandbox-check-'));
    try {
      const result = await this.runOn(host, { workspaceDir: dir, command: 'echo ok' }, 10_000);
      if (result.outcome === 'EXITED' && result.exitCode === 0 && result.stdout === 'ok\n') return undefined;
      return `${result.outcome} ${result.exitCode}: ${result.stderr.trim()}`;
    } catch (error) {
      return (error as Error).message;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
