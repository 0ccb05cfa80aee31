import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';

/** What {@link dispatchPost} reports, in order: the head, every body chunk, then the end or an error. */
export interface ResponseSink {
  onHead(status: number, headers: IncomingHttpHeaders): void;
  onData(chunk: Buffer): void;
  onEnd(): void;
  /** A network error, or the signal's reason when it aborted the exchange. */
  onError(err: Error): void;
}

/** Where and what to POST. */
export interface PostTarget {
  origin: string;
  path: string;
  headers: Record<string, string>;
}

/**
 * POSTs `body` on undici's dispatcher with its handler API: no response stream, no promise per step, about a
 * third less CPU per exchange than `request()` on loopback (bench/execute). Aborting `signal` aborts the
 * exchange (the connection is closed) and reports the signal's reason to `onError`. Timeouts are the caller's:
 * headers and body may legitimately take long (an SSE answer).
 */
export function dispatchPost(dispatcher: Dispatcher, target: PostTarget, body: string, signal: AbortSignal | undefined, sink: ResponseSink): void {
  if (signal?.aborted) return sink.onError(signal.reason as Error);
  let abortExchange: ((reason: Error) => void) | undefined;
  let done = false;
  const onAbort = (): void => abortExchange?.(signal!.reason as Error);
  const finish = (): void => {
    done = true;
    signal?.removeEventListener('abort', onAbort);
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  dispatcher.dispatch(
    { origin: target.origin, path: target.path, method: 'POST', headers: target.headers, body, headersTimeout: 0, bodyTimeout: 0 },
    {
      onRequestStart(controller) {
        abortExchange = (reason) => controller.abort(reason);
        if (signal?.aborted) controller.abort(signal.reason as Error);
      },
      onResponseStart(_controller, status, headers) {
        sink.onHead(status, headers);
      },
      onResponseData(_controller, chunk) {
        sink.onData(chunk);
      },
      onResponseEnd() {
        if (done) return;
        finish();
        sink.onEnd();
      },
      onResponseError(_controller, err) {
        if (done) return;
        finish();
        sink.onError(signal?.aborted ? (signal.reason as Error) : err);
      },
    },
  );
}
