import { Injectable, Logger } from '@nestjs/common';
import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { ToolCallPolicy } from '../call-policy/tool-call-policy';
import { ToolCallError, ToolOutput } from '../tool-executor';
import { ToolErrorClass } from '../tool-error-class';
import { ToolCallLogService } from '../tool-call-log/tool-call-log.service';
import { redactText } from '@app/common/redaction';
import { GatewayMetrics } from '@app/modules/metrics/gateway-metrics.service';
import { fieldLine, type LogFields } from '@app/common/logging/log-context';
import { isTransientDriverError } from '@app/database/transient-database-error';
import { builtinDatabaseBusy } from './builtin-call';
import { CallTargetRegistry } from './call-target.registry';
import { FAILURE_PREFIX, ToolCallContext, ToolCallResult } from './tool-call.types';

/**
 * The call path of one validated, authorized call, in the seed's priority: dispatchers (session built-ins,
 * then web search), else the executor of the tool's serviceType; always under the outer budget with bounded
 * retries; every call ends as a result (never an exception) and a tool log row.
 * It knows nothing of journals or approvals: those wrap it.
 */
@Injectable()
export class ToolCallPathService {
  private readonly logger = new Logger(ToolCallPathService.name);

  constructor(
    private readonly targets: CallTargetRegistry,
    private readonly policy: ToolCallPolicy,
    private readonly log: ToolCallLogService,
    private readonly metrics: GatewayMetrics,
  ) {}

  /** One call; its log lines carry the caller's fields (`ctx.log`: the request id), the call's ids and the tool. */
  async call(
    tool: ToolDescriptor,
    args: Record<string, unknown>,
    ctx: ToolCallContext,
    outerSignal?: AbortSignal,
  ): Promise<ToolCallResult> {
    const attempt = this.attemptFn(tool, args, ctx);
    const run = await this.policy.run(tool, attempt, outerSignal);
    const result = toResult(run.output, run.error, run.attempts, run.durationMs, run.timedOut);
    this.metrics.recordToolCall(tool, result);
    this.log.record({
      tenantId: ctx.tenantId,
      sessionId: ctx.sessionId,
      agentId: ctx.agentId,
      userId: ctx.userId,
      toolCallId: ctx.toolCallId,
      toolId: tool.id,
      toolName: tool.name,
      status: result.status,
      entry: ctx.entry,
      arguments: args,
      redactFields: tool.result?.redactFields,
      attempts: result.attempts,
      durationMs: result.durationMs,
      errorClass: result.errorClass,
      content: result.content,
    });
    if (run.error && run.error.errorClass === ToolErrorClass.EXECUTOR_ERROR) {
      this.logger.warn(
        fieldLine(
          `Tool ${tool.name} (${ctx.toolCallId}) failed unexpectedly: ${redactText(run.error.message)}`,
          callFields(ctx, tool),
        ),
      );
    } else if (result.status === 'FAILED') {
      // The class only: the content may quote what the remote answered.
      this.logger.debug(
        fieldLine(
          `Tool ${tool.name} failed: ${result.errorClass} after ${result.attempts} attempt(s) in ${result.durationMs} ms`,
          callFields(ctx, tool),
        ),
      );
    }
    return result;
  }

  private attemptFn(tool: ToolDescriptor, args: Record<string, unknown>, ctx: ToolCallContext) {
    const dispatcher = this.targets.dispatcherFor(tool, ctx);
    if (dispatcher)
      return async (_attempt: number, signal: AbortSignal, deadline: number) => {
        try {
          return await dispatcher.dispatch(tool, args, ctx, signal, deadline);
        } catch (err) {
          // A built-in's statement the gateway's database refused as busy or unreachable: made again within the call's
          // budget when the built-in may be (see builtinDatabaseBusy). It failed at once with the driver's message.
          throw isTransientDriverError(err) ? builtinDatabaseBusy(tool, err) : err;
        }
      };
    const executor = this.targets.executorFor(tool.serviceType);
    if (!executor) {
      return async (): Promise<ToolOutput> => {
        throw new ToolCallError(
          `no executor for serviceType ${tool.serviceType} is available in this gateway`,
          ToolErrorClass.EXECUTOR_ERROR,
          {
            transient: false,
            reachedRemote: false,
          },
        );
      };
    }
    return (attempt: number, signal: AbortSignal) =>
      executor.execute({
        tool,
        arguments: args,
        toolCallId: ctx.toolCallId,
        tenantId: ctx.tenantId,
        userId: ctx.userId,
        sessionId: ctx.sessionId,
        attempt,
        signal,
      });
  }
}

function toResult(
  output: ToolOutput | undefined,
  error: ToolCallError | undefined,
  attempts: number,
  durationMs: number,
  timedOut: boolean,
): ToolCallResult {
  const base = { attempts, durationMs: Math.round(durationMs * 100) / 100, timedOut };
  if (output && !output.isError)
    return { ...base, status: 'COMPLETED', content: output.content, isError: false, errorClass: null };
  if (output)
    return {
      ...base,
      status: 'FAILED',
      content: `${FAILURE_PREFIX}${output.content}`,
      isError: true,
      errorClass: 'TOOL_REPORTED_ERROR',
    };
  const reason = `${error?.message ?? 'unknown error'} (${attempts} attempt${attempts === 1 ? '' : 's'})`;
  return {
    ...base,
    status: 'FAILED',
    content: `${FAILURE_PREFIX}${reason}`,
    isError: true,
    errorClass: error?.errorClass ?? ToolErrorClass.EXECUTOR_ERROR,
  };
}

/** The fields of a call's log lines: the request's (or run's), then the call's own. */
function callFields(ctx: ToolCallContext, tool: ToolDescriptor): LogFields {
  return {
    ...ctx.log,
    ...(ctx.tenantId && { tenantId: ctx.tenantId }),
    ...(ctx.sessionId && { sessionId: ctx.sessionId }),
    ...(ctx.runId && { runId: ctx.runId }),
    toolCallId: ctx.toolCallId,
    tool: tool.name,
  };
}
