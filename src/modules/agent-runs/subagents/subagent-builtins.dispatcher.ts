import {
  builtinOutsideSession,
  builtinRefusal,
  isPlatformBuiltin,
} from '@app/modules/executors/call-path/builtin-call';
import { Injectable, OnModuleInit } from '@nestjs/common';
import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { BuiltinToolCatalog } from '@app/modules/tool-registry/builtin-tool.catalog';
import { CallTargetRegistry } from '@app/modules/executors/call-path/call-target.registry';
import type { ToolCallContext, ToolDispatcher } from '@app/modules/executors/call-path/tool-call.types';
import type { ToolOutput } from '@app/modules/executors/tool-executor';
import { AgentRunWorker } from '../agent-run.worker';
import { AgentTasksService, DelegationRefused, type DelegatingCall } from './agent-tasks.service';
import { CHECK_TASK_STATUS, SUB_AGENT_CALL, SUBMIT_SUBAGENT_TASK, type TaskView } from './agent-tasks.types';
import { SUBAGENT_BUILTIN_TOOLS } from './subagent-builtins.definitions';
import { withAnySignal } from '@app/common/abort-race';

const HANDLED = new Set([SUB_AGENT_CALL, SUBMIT_SUBAGENT_TASK, CHECK_TASK_STATUS]);
const DEFAULT_WAIT_MS = 30_000;
const MAX_WAIT_MS = 50_000;
/** What a SUB_AGENT_CALL keeps of its call's outer budget to read the task's view and answer. */
const ANSWER_MARGIN_MS = 1_000;

/** SUB_AGENT_CALL, SUBMIT_SUBAGENT_TASK and CHECK_TASK_STATUS, first on the call path of a session. */
@Injectable()
export class SubagentBuiltinsDispatcher implements ToolDispatcher, OnModuleInit {
  readonly name = 'subagent-builtins';
  readonly priority = 110;

  constructor(
    private readonly targets: CallTargetRegistry,
    private readonly catalog: BuiltinToolCatalog,
    private readonly tasks: AgentTasksService,
    private readonly workers: AgentRunWorker,
  ) {}

  onModuleInit(): void {
    this.catalog.register(SUBAGENT_BUILTIN_TOOLS);
    this.targets.registerDispatcher(this);
  }

  handles(tool: ToolDescriptor): boolean {
    return isPlatformBuiltin(tool, HANDLED);
  }

  async dispatch(
    tool: ToolDescriptor,
    args: Record<string, unknown>,
    ctx: ToolCallContext,
    signal: AbortSignal,
    deadline: number,
  ): Promise<ToolOutput> {
    if (!ctx.sessionId || !ctx.tenantId || !ctx.agentId) throw builtinOutsideSession(tool.name);
    const call: DelegatingCall = {
      tenantId: ctx.tenantId,
      sessionId: ctx.sessionId,
      agentId: ctx.agentId,
      toolCallId: ctx.toolCallId,
    };
    if (tool.name === CHECK_TASK_STATUS) {
      const view = await this.tasks.check(call, String(args.taskId));
      if (!view)
        throw builtinRefusal(
          `no task ${String(args.taskId)} was started by this session; give the taskId that ${SUBMIT_SUBAGENT_TASK} answered`,
        );
      // The model reads how it ended here: its reminder (tool-specs' `reminders`, the loop's system text) is done.
      if (view.status === 'COMPLETED' || view.status === 'FAILED') await this.tasks.markReminded(view.taskId);
      return { content: JSON.stringify(view), structured: view };
    }
    try {
      if (tool.name === SUBMIT_SUBAGENT_TASK) {
        // Made again (a RETRY after a crash): the task the first attempt started may be running or done by now.
        const earlier = await this.tasks.ofCall(call);
        if (earlier) return briefOf(earlier);
      }
      // A SUB_AGENT_CALL that will lend its worker's place reserves its child for the lent loop from the moment it
      // is queued: else an idle worker of this instance, woken by the queueing, took the child first, and the lent
      // loop idled beside it while runs queued behind waited for a place.
      const reservation = tool.name === SUB_AGENT_CALL ? this.workers.reservation(ctx.runId) : undefined;
      const task = await this.tasks
        .submit(call, String(args.agent), String(args.task), reservation?.reserve)
        .catch((err: unknown) => {
          reservation?.settle();
          throw err;
        });
      reservation?.settle(task.childRunId);
      if (tool.name === SUBMIT_SUBAGENT_TASK) {
        const view = { taskId: task.id, status: 'QUEUED' as const };
        return { content: JSON.stringify(view), structured: view };
      }
      const waitMs = waitWithin(Number(args.waitMs ?? DEFAULT_WAIT_MS), deadline);
      // The parent's worker waits: another loop works the child in its place (and the child's own children likewise).
      // The wait ends early when the call is cut or this instance stops: the model reads the task's status and taskId.
      const view = await this.workers.lendWhile(ctx.runId, task.childRunId, (stopping) =>
        withAnySignal([signal, stopping], (either) => this.tasks.waitFor(task, waitMs, either)),
      );
      // The model reads how the task ended here (its answer, or its error): its reminder is done.
      if (view.status === 'COMPLETED' || view.status === 'FAILED') await this.tasks.markReminded(task.id);
      return view.status === 'COMPLETED' ? { content: answerText(view), structured: view } : briefOf(view);
    } catch (err) {
      if (err instanceof DelegationRefused) throw builtinRefusal(err.message);
      throw err;
    }
  }
}

/**
 * The wait asked for, at most MAX_WAIT_MS and ending before the call's outer budget (TOOL_DEFAULT_TIMEOUT_MS, or the
 * tool's timeoutMs) does: a wait past it answered the model that the call failed (timed out) while its child worked on,
 * instead of the task's status, and went on waiting, a loop lent to it, for nobody.
 */
function waitWithin(asked: number, deadline: number): number {
  return Math.max(0, Math.min(asked, MAX_WAIT_MS, Math.floor(deadline - performance.now() - ANSWER_MARGIN_MS)));
}

/**
 * The child's answer as the parent's model reads it, with a note when it did not end as the child's model meant it:
 * a cut answer read as whole misleads the parent (CHECK_TASK_STATUS shows `finishReason` in its JSON).
 */
function answerText(view: TaskView): string {
  const answer = view.answer ?? '';
  if (!view.finishReason) return answer;
  const why =
    view.finishReason === 'length'
      ? 'was cut at its token limit: it is incomplete'
      : `ended early (finish_reason "${view.finishReason}"): it may be incomplete`;
  return `${answer}\n\n[the sub-agent's answer ${why}]`;
}

/** A task's status as the model reads it (CHECK_TASK_STATUS reads the answer). */
function briefOf(view: TaskView): ToolOutput {
  const brief = { taskId: view.taskId, status: view.status, ...(view.error && { error: view.error }) };
  return { content: JSON.stringify(brief), structured: view };
}
