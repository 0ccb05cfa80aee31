/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /** Give up after this many milliseconds (default 5000). */
  timeoutMs?: number;
  /** Time between two checks (default 20 ms). */
  intervalMs?: number;
  /** Says what was awaited, for the timeout message. */
  description?: string;
}

/**
 * Polls `predicate` until it returns a truthy value (or a promise of one) and resolves with that value.
 * Rejects after the timeout with the last error the predicate threw, so a failed wait says why.
 * The timer is cleared on every path, so a finished wait never keeps Jest alive.
 */
export async function waitFor<T>(
  predicate: () => T | Promise<T>,
  timeoutOrOptions: number | WaitForOptions = {},
): Promise<NonNullable<T>> {
  const options = typeof timeoutOrOptions === 'number' ? { timeoutMs: timeoutOrOptions } : timeoutOrOptions;
  const timeoutMs = options.timeoutMs ?? 5000;
  const intervalMs = options.intervalMs ?? 20;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await predicate();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const what = options.description ?? predicate.toString();
      const cause = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
      throw new Error(`waitFor timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await new Promise<void>((resolve) => setTimeout(resolve, intervalMs));
  }
}
