import { builtinRefusal } from '@app/modules/executors/call-path/builtin-call';
import { Injectable } from '@nestjs/common';
import { SandboxRunner } from '@app/modules/sandbox/sandbox-runner.service';
import type { SandboxMount, SandboxRunResult } from '@app/modules/sandbox/sandbox.types';
import { SessionEventsStore } from '@app/modules/session-events/session-events.store';
import { ToolCallError, type ToolOutput } from '@app/modules/executors/tool-executor';
import type { WorkspaceOwner } from './workspace-sessions.service';

/** Characters of the command kept in the `command.started` event. */
const EVENT_COMMAND_CHARS = 500;

/**
 * RUN_COMMAND: one command in the sandbox with the session workspace at /workspace, between a `command.started`
 * and a `command.finished` event (exit code, outcome, duration, output bytes). An exit, whatever its code, is an
 * answer; a timeout, a kill or an abort is a failure (the model reads why and what was printed).
 */
@Injectable()
export class WorkspaceCommandRunner {
  constructor(
    private readonly sandbox: SandboxRunner,
    private readonly events: SessionEventsStore,
  ) {}

  async run(
    owner: WorkspaceOwner,
    command: string,
    timeoutMs: number | undefined,
    mounts: SandboxMount[],
    toolCallId: string,
    signal: AbortSignal,
  ): Promise<ToolOutput> {
    if (!this.sandbox.available())
      throw builtinRefusal(`RUN_COMMAND is unavailable on this gateway: ${this.sandbox.unavailableReason()}`);
    const base = { tenantId: owner.tenantId, sessionId: owner.sessionId };
    await this.events.append({
      ...base,
      type: 'command.started',
      data: { toolCallId, command: command.slice(0, EVENT_COMMAND_CHARS), timeoutMs: timeoutMs ?? null },
    });
    let result: SandboxRunResult;
    try {
      result = await this.sandbox.run({ workspaceDir: owner.dir, command, timeoutMs, readOnlyMounts: mounts, signal });
    } catch (err) {
      await this.events.append({
        ...base,
        type: 'command.finished',
        data: { toolCallId, outcome: 'ERROR', exitCode: null, reason: (err as Error).message },
      });
      throw err;
    }
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
      },
    });
    const answer = {
      exitCode: result.exitCode,
      stdout: result.stdout,
      stderr: result.stderr,
      truncated: result.truncated,
      durationMs: result.durationMs,
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
}
