import { builtinRefusal } from '@app/modules/executors/call-path/builtin-call';
import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { SandboxRunner } from '@app/modules/sandbox/sandbox-runner.service';
import type { SandboxMount, SandboxRunResult } from '@app/modules/sandbox/sandbox.types';
import { SessionEventsStore } from '@app/modules/session-events/session-events.store';
import { ToolCallError, type ToolOutput } from '@app/modules/executors/tool-executor';
import type { WorkspaceOwner } from './workspace-sessions.service';
import { tooDeepToMeasure, workspaceUsage } from './workspace-usage';
import { describeFileLimitHit, type CommandFileLimitRun } from './workspace-command-quota.report';
import { WorkspacePathResolver } from './workspace-path.resolver';
import { WorkspaceGate } from './workspace.gate';
import { redactText } from '@app/common/redaction';
import type { LogFields } from '@app/common/logging/log-context';

/** Characters of the command kept in the `command.started` event. */
const EVENT_COMMAND_CHARS = 500;
/** The quota hit a command.finished event repeats (the answer has it whole: up to five file names). */
const EVENT_QUOTA_HIT_CHARS = 2000;
/**
 * What a command leaves of its call's budget for what follows it: killing what it started, measuring the
 * workspace, the events. A command the budget would cut off ends as its own timeout instead, with its output.
 */
const AFTER_COMMAND_MS = 2_000;
/** The shortest command time a call's budget is cut down to (the sandbox refuses 0). */
const MIN_COMMAND_MS = 100;
const MIB = 1024 * 1024;

/** The largest file a command may write, what sets it, and the workspace's entries before the command. */
type CommandFileLimit = Pick<CommandFileLimitRun, 'fileLimit' | 'setBy' | 'before'>;

/**
 * RUN_COMMAND: one command in the sandbox with the session workspace at /workspace, between a `command.started`
 * and a `command.finished` event (exit code, outcome, duration, output bytes). An exit, whatever its code, is an
 * answer; a timeout, a kill or an abort is a failure (the model reads why and what was printed).
 *
 * The workspace quota: no file a command writes may grow past the room left under WORKSPACE_MAX_BYTES (RLIMIT_FSIZE;
 * in a full workspace a command can still read, list and delete); a command that hit that limit is answered with
 * `workspaceQuotaHit` naming the files it stopped and how to free space, and one that leaves the workspace over its
 * quota (many files, or several growing at once) with `workspaceOverQuota`.
 */
@Injectable()
export class WorkspaceCommandRunner {
  private readonly limits: GatewayConfig['workspace'];
  private readonly maxCommandMs: number;
  private readonly sandboxMaxFileBytes: number;

  constructor(
    private readonly sandbox: SandboxRunner,
    private readonly events: SessionEventsStore,
    private readonly gate: WorkspaceGate,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.limits = config.workspace;
    this.maxCommandMs = config.sandbox.timeoutMs;
    this.sandboxMaxFileBytes = config.sandbox.maxFileMb * MIB;
  }

  async run(
    owner: WorkspaceOwner,
    command: string,
    timeoutMs: number | undefined,
    mounts: SandboxMount[],
    toolCallId: string,
    signal: AbortSignal,
    deadline: number,
    log?: LogFields,
  ): Promise<ToolOutput> {
    if (!this.sandbox.available())
      throw builtinRefusal(`RUN_COMMAND is unavailable on this gateway: ${this.sandbox.unavailableReason()}`);
    // Walked up to the entry limit: a command may leave any number of entries, and past the limit bytes do not matter.
    const usage = () => workspaceUsage(owner.dir, this.limits.maxFiles);
    const base = { tenantId: owner.tenantId, sessionId: owner.sessionId };
    let ran: { result: SandboxRunResult; limit: CommandFileLimit };
    // Set once command.started is appended: only a command that started gets a command.finished.
    let started = false;
    try {
      // The workspace is the command's while it runs: the gateway's file operations wait (see WorkspaceGate).
      ran = await this.gate.run(owner.dir, 'command', async () => {
        // A session closed while the command waited took its workspace: WORKSPACE_UNAVAILABLE, as for the file tools.
        await WorkspacePathResolver.existing(owner.dir, '', this.limits.maxFiles, true);
        // Measured once the workspace is the command's: a write that landed while it waited leaves it less room.
        const before = await usage();
        const limit = this.fileLimit(before);
        // Within the call's budget (TOOL_DEFAULT_TIMEOUT_MS, or the tool's timeoutMs) as well as SANDBOX_TIMEOUT_MS:
        // cut off by the budget, the call would fail without the output printed so far.
        const left = Math.max(MIN_COMMAND_MS, Math.floor(deadline - performance.now() - AFTER_COMMAND_MS));
        timeoutMs = Math.min(timeoutMs ?? this.maxCommandMs, this.maxCommandMs, left);
        await this.events.append({
          ...base,
          type: 'command.started',
          // Redacted like the tool log's arguments: a command line may carry a token (curl -H "Authorization: ...").
          data: {
            toolCallId,
            command: redactText(command).slice(0, EVENT_COMMAND_CHARS),
            timeoutMs: timeoutMs ?? null,
          },
        });
        started = true;
        const result = await this.sandbox.run({
          workspaceDir: owner.dir,
          command,
          timeoutMs,
          readOnlyMounts: mounts,
          signal,
          maxFileBytes: limit.fileLimit,
          log: { ...log, tenantId: owner.tenantId, sessionId: owner.sessionId, toolCallId },
        });
        return { result, limit };
      });
    } catch (err) {
      if (!started) throw err;
      await this.events.append({
        ...base,
        type: 'command.finished',
        data: { toolCallId, outcome: 'ERROR', exitCode: null, reason: (err as Error).message },
      });
      throw err;
    }
    const { result, limit } = ran;
    let after: Awaited<ReturnType<typeof workspaceUsage>> | undefined;
    let hit: string | undefined;
    try {
      after = await this.gate.run(owner.dir, 'files', usage);
      hit = describeFileLimitHit({
        ...limit,
        stderr: result.stderr,
        killedAtFileLimit: result.killedAtFileLimit === true,
        after: after.walked,
        usedAfter: after.bytes,
        maxBytes: this.limits.maxBytes,
      });
    } finally {
      // Written whether or not the workspace could be measured after the command: every command.started has one.
      await this.events.append({
        ...base,
        type: 'command.finished',
        data: {
          toolCallId,
          outcome: result.outcome,
          exitCode: result.exitCode,
          durationMs: result.durationMs,
          stdoutBytes: Buffer.byteLength(result.stdout),
          stderrBytes: Buffer.byteLength(result.stderr),
          truncated: result.truncated,
          ...(result.reason ? { reason: result.reason } : {}),
          ...(hit && { workspaceQuotaHit: hit.slice(0, EVENT_QUOTA_HIT_CHARS) }),
        },
      });
    }
    const over = this.overQuota(after);
    const answer = {
      exitCode: result.exitCode,
      stdout: result.stdout,
      stderr: result.stderr,
      truncated: result.truncated,
      durationMs: result.durationMs,
      ...(hit && { workspaceQuotaHit: hit }),
      ...(over && { workspaceOverQuota: `${over}: no file can grow and no file tool writes until files are deleted` }),
    };
    if (result.outcome === 'EXITED') return { content: JSON.stringify(answer), structured: answer };
    const what =
      result.outcome === 'TIMED_OUT' ? 'timed out' : result.outcome === 'ABORTED' ? 'was aborted' : 'was killed';
    throw new ToolCallError(
      `the command ${what}${result.reason ? ` (${result.reason})` : ''}; output so far: ${JSON.stringify(answer)}`,
      result.outcome === 'TIMED_OUT' ? 'COMMAND_TIMED_OUT' : `COMMAND_${result.outcome}`,
      { transient: false, reachedRemote: true },
    );
  }

  /** The largest file a command may write in the workspace as `before` measured it, and the setting that sets it. */
  private fileLimit(before: Awaited<ReturnType<typeof workspaceUsage>>): CommandFileLimit {
    const room = before.truncated ? 0 : Math.max(0, this.limits.maxBytes - before.bytes);
    return room <= this.sandboxMaxFileBytes
      ? { fileLimit: room, setBy: 'WORKSPACE_MAX_BYTES', before: before.walked }
      : { fileLimit: this.sandboxMaxFileBytes, setBy: 'SANDBOX_MAX_FILE_MB', before: before.walked };
  }

  /** How the workspace passes its quota, or undefined (`usage` walked up to WORKSPACE_MAX_FILES entries). */
  private overQuota(usage: { bytes: number; truncated: boolean; tooDeep?: string }): string | undefined {
    const { maxBytes, maxFiles } = this.limits;
    if (usage.tooDeep !== undefined) return tooDeepToMeasure(usage.tooDeep);
    if (usage.truncated) return `the workspace holds more than ${maxFiles} entries, WORKSPACE_MAX_FILES is ${maxFiles}`;
    if (usage.bytes > maxBytes) return `the workspace holds ${usage.bytes} bytes, WORKSPACE_MAX_BYTES is ${maxBytes}`;
    return undefined;
  }
}
