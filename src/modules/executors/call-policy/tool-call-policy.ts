import { Inject, Injectable } from '@nestjs/common';
import { untilAborted } from '@app/common/abort-race';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import type { SideEffectLevel, ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { ToolCallError, ToolOutput } from '../tool-executor';
import { ToolErrorClass } from '../tool-error-class';

/** One attempt: gets the 1-based attempt number and the signal the budget (or the caller) aborts. */
/** One attempt; `deadline` is the performance.now() instant the call's outer budget ends (when `signal` aborts). */
export type ToolAttemptFn = (attempt: number, signal: AbortSignal, deadline: number) => Promise<ToolOutput>;

/** How a call under the policy ended: an output, or the last attempt's error. */
export interface ToolCallOutcome {
  output?: ToolOutput;
  error?: ToolCallError;
  /** Attempts started (1 when the first one succeeded). */
  attempts: number;
  /** Wall time of the whole call, backoff included. */
  durationMs: number;
  /** The outer budget ran out (the in-flight attempt was aborted). */
  timedOut: boolean;
}

type PolicyConfig = Pick<
  GatewayConfig,
  'toolDefaultTimeoutMs' | 'toolMaxAttempts' | 'toolRetryBaseDelayMs' | 'toolRetryMaxAfterMs'
>;

/** Levels whose calls may write: retried only when the failed attempt provably never reached the remote. */
const SIDE_EFFECTING: ReadonlySet<SideEffectLevel> = new Set(['SIDE_EFFECT', 'HIGH_RISK']);

/**
 * Runs one tool call's attempts under the outer budget and the retry rules:
 * - budget = the tool's positive `timeoutMs`, else TOOL_DEFAULT_TIMEOUT_MS, covering every attempt and wait;
 *   when it runs out the in-flight attempt's signal is aborted and the call ends (`timedOut`), even if the
 *   attempt ignores its signal;
 * - at most TOOL_MAX_ATTEMPTS attempts; only transient errors are retried; READ_ONLY and IDEMPOTENT tools
 *   after any transient error, SIDE_EFFECT and HIGH_RISK only when `reachedRemote === false` (and never
 *   after a timeout);
 * - waits are exponential with full jitter (base TOOL_RETRY_BASE_DELAY_MS, doubling, capped at
 *   TOOL_RETRY_MAX_AFTER_MS); a Retry-After is honoured as given, but one longer than TOOL_RETRY_MAX_AFTER_MS
 *   ends the call, and no wait that would end past the budget is started.
 *
 * A small loop rather than cockatiel: the rules couple the delay to the error (Retry-After), to the budget
 * left and to the tool's side-effect level, and the budget must abort an attempt that ignores its signal;
 * cockatiel's retry+timeout would need a stateful backoff and predicate sharing that state, for no gain.
 */
@Injectable()
export class ToolCallPolicy {
  constructor(@Inject(GATEWAY_CONFIG) private readonly config: PolicyConfig) {}

  /** The outer budget of a call to `tool`, in ms. */
  budgetMs(tool: Pick<ToolDescriptor, 'timeoutMs'>): number {
    return tool.timeoutMs && tool.timeoutMs > 0 ? tool.timeoutMs : this.config.toolDefaultTimeoutMs;
  }

  async run(tool: ToolDescriptor, attemptFn: ToolAttemptFn, outerSignal?: AbortSignal): Promise<ToolCallOutcome> {
    const started = performance.now();
    const budget = this.budgetMs(tool);
    const deadline = started + budget;
    const controller = new AbortController();
    const { signal } = controller;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(timeoutError(tool.name, budget));
    }, budget);
    const onOuterAbort = (): void => controller.abort(cancelledError(tool.name, outerSignal?.reason));
    if (outerSignal?.aborted) onOuterAbort();
    else outerSignal?.addEventListener('abort', onOuterAbort, { once: true });

    let attempts = 0;
    let error: ToolCallError | undefined;
    try {
      while (!signal.aborted) {
        attempts++;
        try {
          const attempt = attempts;
          const output = await untilAborted(signal, (own) => attemptFn(attempt, own, deadline));
          return { output, attempts, durationMs: performance.now() - started, timedOut: false };
        } catch (err) {
          error = signal.aborted ? (signal.reason as ToolCallError) : asToolCallError(err);
        }
        if (signal.aborted || !this.mayRetry(tool, error) || attempts >= this.config.toolMaxAttempts) break;
        const delay = this.delayBefore(attempts + 1, error);
        if (delay === 'too-long') {
          error = retryAfterTooLong(error, this.config.toolRetryMaxAfterMs);
          break;
        }
        if (performance.now() + delay >= deadline) {
          if (error.retryAfterMs !== undefined) error = retryAfterPastBudget(error, budget);
          break;
        }
        await sleep(delay, signal);
      }
      if (signal.aborted) error = signal.reason as ToolCallError;
      return { error, attempts, durationMs: performance.now() - started, timedOut };
    } finally {
      clearTimeout(timer);
      outerSignal?.removeEventListener('abort', onOuterAbort);
    }
  }

  /** Whether a failed attempt may be followed by another (attempt count and budget aside). */
  mayRetry(tool: Pick<ToolDescriptor, 'sideEffect'>, error: ToolCallError): boolean {
    if (!error.transient) return false;
    if (!SIDE_EFFECTING.has(tool.sideEffect)) return true;
    return error.reachedRemote === false && error.errorClass !== ToolErrorClass.TIMEOUT;
  }

  /** The wait before attempt `next`: Retry-After when given, else full-jitter exponential backoff. */
  private delayBefore(next: number, error: ToolCallError): number | 'too-long' {
    const cap = this.config.toolRetryMaxAfterMs;
    if (error.retryAfterMs !== undefined) return error.retryAfterMs > cap ? 'too-long' : error.retryAfterMs;
    const ceiling = Math.min(cap, this.config.toolRetryBaseDelayMs * 2 ** (next - 2));
    return Math.floor(this.random() * ceiling);
  }

  /** Jitter source; a seam for unit tests. */
  protected random(): number {
    return Math.random();
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

function asToolCallError(err: unknown): ToolCallError {
  if (err instanceof ToolCallError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new ToolCallError(message, ToolErrorClass.EXECUTOR_ERROR, {
    transient: false,
    reachedRemote: true,
    cause: err,
  });
}

function timeoutError(toolName: string, budgetMs: number): ToolCallError {
  return new ToolCallError(
    `Tool ${toolName} timed out after ${budgetMs} ms (retries included), its budget (the tool's timeoutMs, else TOOL_DEFAULT_TIMEOUT_MS); whether it took effect is unknown. Check before calling it again, ask it for less, or have an admin raise its timeoutMs (PATCH /api/v1/admin/tools/{id})`,
    ToolErrorClass.TIMEOUT,
    {
      transient: true,
      reachedRemote: true,
    },
  );
}

function cancelledError(toolName: string, reason: unknown): ToolCallError {
  const why = reason instanceof Error ? `: ${reason.message}` : '';
  return new ToolCallError(`Tool ${toolName} was cancelled${why}`, ToolErrorClass.CANCELLED, {
    transient: false,
    reachedRemote: true,
    cause: reason,
  });
}

function retryAfterTooLong(error: ToolCallError, maxMs: number): ToolCallError {
  return new ToolCallError(
    `${error.message} (asked to retry after ${error.retryAfterMs} ms, more than the ${maxMs} ms TOOL_RETRY_MAX_AFTER_MS allows)`,
    ToolErrorClass.RETRY_AFTER_TOO_LONG,
    { ...error.options, transient: false, cause: error },
  );
}

function retryAfterPastBudget(error: ToolCallError, budgetMs: number): ToolCallError {
  return new ToolCallError(
    `${error.message} (not retried: the ${error.retryAfterMs} ms wait the service asked for (Retry-After) would end past the call's ${budgetMs} ms budget; raise the tool's timeoutMs to allow it)`,
    error.errorClass,
    { ...error.options, cause: error },
  );
}
