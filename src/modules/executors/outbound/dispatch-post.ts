import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';

/** What {@link dispatchPost} reports, in order: the head, every body chunk, then the end or an error. */
export interface ResponseSink {
  onHead(status: number, headers: IncomingHttpHeaders): void;
  onData(chunk: Buffer): void;
  onEnd(): void;
  /** A network error, or the reason given to {@link PostHandle.abort}. */
  onError(err: Error): void;
}

/** Where and what to POST. */
export interface PostTarget {
  origin: string;
  path: string;
  headers: Record<string, string>;
}

/** Aborts the exchange (the connection is closed); the sink gets `reason` unless the answer already ended. */
export interface PostHandle {
  abort(reason: Error): void;
}

/**
 * POSTs `body` on undici's dispatcher with its handler API: no response stream, no promise and no
 * AbortSignal per exchange, about a third less CPU than `request()` on loopback (bench/execute). Timeouts are
 * the caller's (it calls abort): headers and body may legitimately take long (an SSE answer).
 */
export function dispatchPost(dispatcher: Dispatcher, target: PostTarget, body: string, sink: ResponseSink): PostHandle {
  let abortExchange: ((reason: Error) => void) | undefined;
  let abortedWith: Error | undefined;
  let done = false;
  dispatcher.dispatch(
    {
      origin: target.origin,
      path: target.path,
      method: 'POST',
      headers: target.headers,
      body,
      headersTimeout: 0,
      bodyTimeout: 0,
    },
    {
      onRequestStart(controller) {
        abortExchange = (reason) => controller.abort(reason);
        if (abortedWith) controller.abort(abortedWith);
      },
      onResponseStart(_controller, status, headers) {
        sink.onHead(status, headers);
      },
      onResponseData(_controller, chunk) {
        sink.onData(chunk);
      },
      onResponseEnd() {
        if (done) return;
        done = true;
        sink.onEnd();
      },
      onResponseError(_controller, err) {
        if (done) return;
        done = true;
        sink.onError(abortedWith ?? err);
      },
    },
  );
  return {
    abort(reason) {
      if (done || abortedWith) return;
      abortedWith = reason;
      abortExchange?.(reason);
    },
  };
}
