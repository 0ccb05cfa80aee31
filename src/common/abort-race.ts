/**
 * Runs `work` with a signal of its own that follows `signal`, and settles with the work or rejects with the
 * signal's reason as soon as it aborts, whichever comes first (work that ignores its signal goes on, its
 * outcome dropped). When the work settles first the listener on `signal` is removed: long-lived signals
 * (a session's, a request's) collect no listener per call, and libraries that never remove theirs (the MCP
 * SDK) only ever see the per-call signal. Already aborted: rejects at once without starting the work.
 */
export function untilAborted<T>(
  signal: AbortSignal | undefined,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  const own = new AbortController();
  if (!signal) return work(own.signal);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      own.abort(signal.reason);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const settle = (): void => signal.removeEventListener('abort', onAbort);
    let running: Promise<T>;
    try {
      running = work(own.signal);
    } catch (err) {
      settle();
      return reject(err);
    }
    running.then(
      (value) => {
        settle();
        resolve(value);
      },
      (err: unknown) => {
        settle();
        reject(err);
      },
    );
  });
}
