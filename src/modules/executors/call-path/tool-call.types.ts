import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import type { ToolOutput } from '../tool-executor';
import type { LogFields } from '@app/common/logging/log-context';

/** Who calls and where: what dispatchers and executors may need beyond the arguments. */
export interface ToolCallContext {
  tenantId: string | null;
  userId: string | null;
  agentId: string | null;
  /** Set by `act`/`resume`; executeDirect has no session (so no built-in dispatchers, no web search). */
  sessionId: string | null;
  toolCallId: string;
  entry: 'ACT' | 'RESUME' | 'DIRECT';
  /** The agent run whose loop made the call (its act); absent for a runtime's act, a resume and executeDirect. */
  runId?: string;
  /** Web-search policy already narrowed for this call (web-search dispatcher re-checks it). */
  webSearch?: { mode: 'DISABLED' | 'AUTO' | 'ALWAYS'; tenantCapability: boolean };
  /**
   * When the calling request's configuration view was confirmed (a performance.now() instant, see
   * VisibilitySnapshotService.tenantView): a dispatcher that reads the agent's configuration takes the view confirmed
   * since then, the one the call's visibility was checked against, without reading it again.
   */
  freshSince?: number;
  /** The log fields of the request (or run) that made the call: its lines carry them (see `fieldLine`). */
  log?: LogFields;
}

export type ToolCallStatus = 'COMPLETED' | 'FAILED';

/** The result of one call, after retries: what the model reads and the structured block that is logged. */
export interface ToolCallResult {
  status: ToolCallStatus;
  content: string;
  isError: boolean;
  attempts: number;
  durationMs: number;
  errorClass: string | null;
  timedOut: boolean;
}

/**
 * Runs a tool before the registry's executors get a chance: session built-ins (workspace, todo, files)
 * and platform web search. Lower `priority` runs first.
 */
export interface ToolDispatcher {
  readonly name: string;
  readonly priority: number;
  handles(tool: ToolDescriptor, ctx: ToolCallContext): boolean;
  /**
   * `deadline`: the performance.now() instant the call's outer budget ends (when `signal` aborts). A built-in with
   * a time limit of its own (RUN_COMMAND's sandbox) ends its work before it, so that what it produced is answered.
   */
  dispatch(
    tool: ToolDescriptor,
    args: Record<string, unknown>,
    ctx: ToolCallContext,
    signal: AbortSignal,
    deadline: number,
  ): Promise<ToolOutput>;
}

/** The prefix of every failed call's content (the seed's wording; models and runtimes look for it). */
export const FAILURE_PREFIX = '执行失败: ';
