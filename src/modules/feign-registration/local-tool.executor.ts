import { Injectable } from '@nestjs/common';
import { ToolCallError, ToolExecutor, ToolInvocation, ToolOutput } from '@app/modules/executors/tool-executor';
import { ToolErrorClass } from '@app/modules/executors/tool-error-class';
import { LocalToolHandlerRegistry } from './local-tool-handler.registry';
import type { LocalToolDefinition } from './feign-tool.types';

/**
 * Calls the decorated method behind a LOCAL or FEIGN row, found by the row's endpoint ("Provider.method"),
 * with the validated arguments and a {@link LocalToolContext}. Only the row the decorator registered may run
 * the method: a DB row pointing at the same endpoint is refused.
 */
@Injectable()
abstract class InProcessToolExecutor implements ToolExecutor {
  abstract readonly serviceType: LocalToolDefinition['serviceType'];

  constructor(private readonly handlers: LocalToolHandlerRegistry) {}

  async execute(invocation: ToolInvocation): Promise<ToolOutput> {
    const { tool } = invocation;
    const entry = this.handlers.findByEndpoint(tool.endpoint);
    if (!entry) {
      throw notFound(
        `Tool ${tool.name} has no method at ${tool.endpoint} in this gateway: its decorator is gone (ORPHANED) or this instance runs another build. Deploy the method or disable the tool.`,
      );
    }
    const d = entry.definition;
    if (tool.serviceType !== this.serviceType || d.serviceType !== this.serviceType) {
      throw notFound(
        `Tool ${tool.name} (serviceType ${tool.serviceType}, method registered as ${d.serviceType}) reached the ${this.serviceType} executor; it runs only ${this.serviceType} tools.`,
      );
    }
    if (d.name !== tool.name || d.source !== tool.source) {
      throw notFound(
        `Tool ${tool.name} (${tool.source}/${tool.serviceType}) points at ${tool.endpoint}, which runs only as the ${d.source} tool ${d.name}: call ${d.name} instead (an admin should delete ${tool.name}).`,
      );
    }
    let result: unknown;
    try {
      result = await entry.handler(invocation.arguments, {
        toolCallId: invocation.toolCallId,
        tenantId: invocation.tenantId,
        userId: invocation.userId,
        signal: invocation.signal,
      });
    } catch (err) {
      if (err instanceof ToolCallError) throw err;
      // The message only: a stack would leak internals to the model.
      const message = err instanceof Error ? err.message : String(err);
      throw new ToolCallError(message || `${tool.name} failed`, ToolErrorClass.LOCAL_TOOL_ERROR, {
        transient: false,
        reachedRemote: true,
        cause: err,
      });
    }
    return toOutput(tool.name, result);
  }
}

function toOutput(toolName: string, result: unknown): ToolOutput {
  if (typeof result === 'string') return { content: result };
  try {
    return { content: JSON.stringify(result ?? null), structured: result };
  } catch (err) {
    throw new ToolCallError(
      `${toolName} returned a result that is not JSON: ${(err as Error).message}`,
      ToolErrorClass.LOCAL_TOOL_BAD_RESULT,
      {
        transient: false,
        reachedRemote: true,
        cause: err,
      },
    );
  }
}

function notFound(message: string): ToolCallError {
  return new ToolCallError(message, ToolErrorClass.LOCAL_TOOL_NOT_FOUND, { transient: false, reachedRemote: false });
}

/** `serviceType: LOCAL`: methods decorated with `@Tool`. */
@Injectable()
export class LocalToolExecutor extends InProcessToolExecutor {
  readonly serviceType = 'LOCAL' as const;
}

/** `serviceType: FEIGN`: methods decorated with `@FeignTool`. */
@Injectable()
export class FeignToolExecutor extends InProcessToolExecutor {
  readonly serviceType = 'FEIGN' as const;
}

/** The executors to register in the executor factory (one per service type). */
export const LOCAL_TOOL_EXECUTORS = [LocalToolExecutor, FeignToolExecutor] as const;
