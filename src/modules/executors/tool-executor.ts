import type { ServiceType, ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';

/** One attempt of one tool call, as an executor sees it. */
/** Largest answer a remote tool (HTTP or MCP) may send; a larger one fails the attempt (not retried). */
export const TOOL_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

export interface ToolInvocation {
  tool: ToolDescriptor;
  /** Arguments already parsed and validated against the tool's schema. */
  arguments: Record<string, unknown>;
  /** The model's tool call id; remotes receive it with the rest of the call's context (see remote-call.context). */
  toolCallId: string;
  tenantId: string | null;
  userId: string | null;
  /** The call's session (act, resume); absent or null for executeDirect. */
  sessionId?: string | null;
  /** 1-based attempt number inside the call's outer budget. */
  attempt: number;
  /** Aborted when the outer budget runs out: executors must pass it to the underlying request. */
  signal: AbortSignal;
}

/** What a successful attempt returns. `isError` marks a tool-level error the tool itself reported (no retry). */
export interface ToolOutput {
  content: string;
  isError?: boolean;
  structured?: unknown;
}

/**
 * A failed attempt. The retry policy reads `transient` and `reachedRemote`:
 * side-effecting tools are retried only when the request provably never reached the remote.
 */
export class ToolCallError extends Error {
  constructor(
    message: string,
    readonly errorClass: string,
    readonly options: {
      /** Worth another attempt (connection refused, 5xx, 429, a lost MCP session). */
      transient: boolean;
      /** The remote may have seen the request (false only when provably not: refused connection, DNS failure, blocked). */
      reachedRemote: boolean;
      /** Server-requested delay before the next attempt (Retry-After), in ms. */
      retryAfterMs?: number;
      /** The HTTP status the remote answered with, when there was one (HTTP tools, MCP over HTTP). */
      httpStatus?: number;
      /** The underlying error, for logs (never shown to the model). */
      cause?: unknown;
    },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolCallError';
  }
  get transient(): boolean {
    return this.options.transient;
  }
  get reachedRemote(): boolean {
    return this.options.reachedRemote;
  }
  get retryAfterMs(): number | undefined {
    return this.options.retryAfterMs;
  }
}

/** An executor for one `serviceType`; the factory picks it by the tool's row. */
export interface ToolExecutor {
  readonly serviceType: ServiceType;
  execute(invocation: ToolInvocation): Promise<ToolOutput>;
}
