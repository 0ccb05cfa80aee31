import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DomainError } from '@app/common/errors/domain-error';
import { GATEWAY_CONFIG, type GatewayConfig } from '@app/config/gateway-config';
import { SandboxErrorCode } from './sandbox.errors';
import type { SandboxRunRequest, SandboxRunResult } from './sandbox.types';
import { buildBwrapArgs, probeSystemFolders, type SandboxSystemEntry } from './sandbox-bwrap.args';
import { runBwrapProcess, SandboxStartError } from './sandbox-bwrap.process';
import { findExecutable, sandboxHostUser } from './sandbox-host.probe';
import { validateSandboxRequest } from './sandbox-request.validation';
import { giveWorkspaceTo } from './sandbox-workspace.owner';

const MIB = 1024 * 1024;

interface SandboxHost {
  bwrapPath: string;
  prlimitPath: string;
  chownPath: string;
  system: SandboxSystemEntry[];
  user: { uid: number; gid: number } | undefined;
}

/**
 * Runs shell commands in a bubblewrap sandbox (RUN_COMMAND). Availability is decided once at start:
 * SANDBOX_DRIVER, the binaries, and one real sandboxed `true`. Unavailable means refused, never unsandboxed.
 */
@Injectable()
export class SandboxRunner implements OnModuleInit {
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
    const chownPath = findExecutable('chown');
    if (!bwrapPath) {
      this.whyUnavailable =
        'bubblewrap is not installed (apt-get install bubblewrap), so commands cannot be sandboxed' +
        (driver === 'bwrap' ? ' although SANDBOX_DRIVER=bwrap' : '');
    } else if (!prlimitPath?.startsWith('/usr/') || !chownPath) {
      this.whyUnavailable = 'prlimit and chown (util-linux, coreutils) must be installed under /usr';
    } else {
      const candidate = { bwrapPath, prlimitPath, chownPath, system: probeSystemFolders(), user: sandboxHostUser() };
      this.whyUnavailable = (await this.selfTest(candidate)) ?? '';
      if (!this.whyUnavailable) this.host = candidate;
    }
    if (!this.host) this.logger.warn(`Commands cannot run: ${this.whyUnavailable}`);
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
      if (!(error instanceof SandboxStartError)) throw error;
      throw new DomainError(SandboxErrorCode.SANDBOX_UNAVAILABLE, error.message);
    }
  }

  private async runOn(host: SandboxHost, req: SandboxRunRequest, timeoutMs: number): Promise<SandboxRunResult> {
    const { sandbox } = this.config;
    if (host.user) await giveWorkspaceTo(host.chownPath, req.workspaceDir, host.user);
    const args = buildBwrapArgs({
      system: host.system,
      workspaceDir: req.workspaceDir,
      mounts: req.readOnlyMounts ?? [],
      command: req.command,
      prlimitPath: host.prlimitPath,
      limits: {
        memoryBytes: sandbox.memoryMb * MIB,
        maxProcesses: sandbox.maxProcesses,
        maxFileBytes: sandbox.maxFileMb * MIB,
        tmpBytes: sandbox.maxFileMb * MIB,
      },
    });
    return runBwrapProcess({
      bwrapPath: host.bwrapPath,
      args,
      user: host.user,
      timeoutMs,
      outputMaxBytes: sandbox.outputMaxBytes,
      signal: req.signal,
    });
  }

  /** One real sandboxed command: bubblewrap may be installed yet refused (no user namespaces). */
  private async selfTest(host: SandboxHost): Promise<string | undefined> {
    const dir = await mkdtemp(join(tmpdir(), 'gw-sandbox-check-'));
    try {
      const result = await this.runOn(host, { workspaceDir: dir, command: 'echo ok' }, 10_000);
      if (result.outcome === 'EXITED' && result.exitCode === 0 && result.stdout === 'ok\n') return undefined;
      return `bubblewrap's self-test failed (${result.outcome} ${result.exitCode}): ${result.stderr.trim()}`;
    } catch (error) {
      return `bubblewrap's self-test failed: ${(error as Error).message}`;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
