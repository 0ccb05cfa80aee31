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

/**
 * Runs `work` with a signal that aborts as soon as any of `signals` does (undefined ones are skipped), and removes its
 * listeners from them once the work settles. Use it instead of `AbortSignal.any` where a source lives long (the
 * instance's stopping signal): on Node 20 every signal `AbortSignal.any` makes leaves about 50 bytes on each source
 * until that source itself goes (measured with `node --expose-gc`: 53 bytes per call on Node 20.20).
 */
export async function withAnySignal<T>(
  signals: readonly (AbortSignal | undefined)[],
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const own = new AbortController();
  const listening: [AbortSignal, () => void][] = [];
  for (const source of signals) {
    if (!source) continue;
    if (source.aborted) {
      own.abort(source.reason);
      break;
    }
    const follow = (): void => own.abort(source.reason);
    source.addEventListener('abort', follow, { once: true });
    listening.push([source, follow]);
  }
  try {
    return await work(own.signal);
  } finally {
    for (const [source, follow] of listening) source.removeEventListener('abort', follow);
  }
}
