import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { Dispatcher } from 'undici';
import { dispatchPost, PostHandle, PostTarget, ResponseSink } from '../outbound/dispatch-post';
import { JsonRpcMessage, McpAnswerReader } from './mcp-answer.reader';
import { McpExchangeError } from './mcp-exchange.errors';

/** The session an exchange speaks on: what the SDK transport learned at `initialize`. */
export interface StreamableSession {
  url: URL;
  sessionId?: string;
  protocolVersion?: string;
  /** Extra headers of the endpoint (e.g. an API key). */
  headers?: Record<string, string>;
}

/** Per-request options of {@link McpStreamableExchange.request}. */
export interface ExchangeRequestOptions {
  /** Aborting it aborts the HTTP request and sends `notifications/cancelled`; the promise rejects with its reason. */
  signal?: AbortSignal;
  /** Rejects with McpExchangeError `timeout` after this long, cancelling like an abort. */
  timeoutMs: number;
}

const ID_PREFIX = 'gw-';
/**
 * How long an answer stream may stay open after it carried the answer. The spec says the server should end it
 * then; one that does not would otherwise hold a socket per call for as long as it likes.
 */
const ANSWER_STREAM_GRACE_MS = 1000;
/**
 * Answers to the server's own requests (pings) in flight at once, on the whole session. A server that floods an
 * answer stream with requests gets the rest unanswered instead of one outbound POST (and socket) each.
 */
const MAX_SERVER_ANSWERS_IN_FLIGHT = 8;
/** How long a POST whose answer is only an acknowledgement (a notification, an answer to a ping) may take. */
const ACKNOWLEDGE_TIMEOUT_MS = 5000;

/**
 * Sends JSON-RPC requests on an initialized streamable-HTTP MCP session straight over undici's dispatcher
 * ({@link dispatchPost}; answers read by {@link McpAnswerReader}), for the hot path (`tools/call`). The SDK
 * Client still opens the session, lists tools, pings and holds the standalone GET stream; this only spares
 * each call the SDK transport's WHATWG fetch / web-stream emulation. Kept because it measures: `execute` p50
 * about 30% lower than with the SDK Client at 1 caller (`npm run bench:execute` runs both side by side;
 * MCP_TOOLS_CALL_CLIENT=sdk switches it off).
 *
 * Follows the transport spec: POST with `Accept: application/json, text/event-stream`, the session id and
 * protocol version headers; the answer is one JSON body or an SSE stream carrying it. On that stream a server
 * request is answered (`ping` with `{}`, anything else "method not found": this client offers no
 * capabilities; a few at a time, the rest of a flood unanswered), `notifications/tools/list_changed` is passed
 * on, other notifications are ignored. A stream that ends without the answer fails at once as a lost connection
 * (the SDK would wait for the timeout); one still open a moment after the answer is closed.
 * A JSON-RPC error answer is thrown as McpAnsweredError (an SDK McpError: what the server said); every other failure as
 * {@link McpExchangeError}, classified by its `failure`, never by message text. Request ids are strings (`gw-<n>`), so they never collide with the SDK's numeric ids on
 * the same session.
 */
export class McpStreamableExchange {
  private nextId = 0;
  /** Answers to server requests not yet acknowledged (see MAX_SERVER_ANSWERS_IN_FLIGHT). */
  private answering = 0;
  /** How to abort each request in flight (close() does). */
  private readonly pending = new Set<(reason: Error) => void>();
  private readonly target: PostTarget;

  constructor(
    session: StreamableSession,
    private readonly dispatcher: Dispatcher,
    private readonly onToolsListChanged: () => void,
  ) {
    const headers: Record<string, string> = {
      ...session.headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    if (session.sessionId) headers['mcp-session-id'] = session.sessionId;
    if (session.protocolVersion) headers['mcp-protocol-version'] = session.protocolVersion;
    this.target = { origin: session.url.origin, path: `${session.url.pathname}${session.url.search}`, headers };
  }

  /** Sends `method` and resolves with the answer's `result`; a JSON-RPC error rejects as McpAnsweredError. */
  async request(method: string, params: unknown, options: ExchangeRequestOptions): Promise<unknown> {
    const id = `${ID_PREFIX}${++this.nextId}`;
    const outer = options.signal;
    if (outer?.aborted) throw outer.reason;
    let abortedWith: Error | undefined;
    let handle: PostHandle | undefined;
    let reader: McpAnswerReader | undefined;
    const abort = (reason: Error): void => {
      if (abortedWith) return;
      abortedWith = reason;
      handle?.abort(reason);
    };
    const relay = (): void => abort(outer!.reason as Error);
    outer?.addEventListener('abort', relay, { once: true });
    const timer = setTimeout(
      () => abort(new McpExchangeError('timeout', `no answer within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    this.pending.add(abort);
    try {
      return await new Promise<unknown>((resolve, reject) => {
        reader = new McpAnswerReader(id, resolve, reject, (message) => this.onServerMessage(message));
        handle = dispatchPost(
          this.dispatcher,
          this.target,
          JSON.stringify({ jsonrpc: '2.0', id, method, params }),
          reader,
        );
      });
    } catch (err) {
      if (!abortedWith) {
        if (reader?.abandoned) handle?.abort(err as Error); // too large or not JSON: stop reading the rest
        throw err;
      }
      this.notify('notifications/cancelled', { requestId: id, reason: abortedWith.message ?? String(abortedWith) });
      throw abortedWith;
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', relay);
      this.pending.delete(abort);
      if (handle && reader && !reader.ended) cutAfterGrace(handle, reader);
    }
  }

  /** Fails every request in flight with McpExchangeError `closed`. */
  close(): void {
    for (const abort of this.pending) abort(new McpExchangeError('closed', 'the session was closed'));
    this.pending.clear();
  }

  private onServerMessage(message: JsonRpcMessage): void {
    if (message.method === undefined) return;
    if (message.id === undefined) {
      if (message.method === 'notifications/tools/list_changed') this.onToolsListChanged();
      return;
    }
    // A request from the server: this client declares no capabilities, so only ping gets a result.
    if (this.answering >= MAX_SERVER_ANSWERS_IN_FLIGHT) return;
    const answer =
      message.method === 'ping'
        ? { jsonrpc: '2.0', id: message.id, result: {} }
        : {
            jsonrpc: '2.0',
            id: message.id,
            error: { code: ErrorCode.MethodNotFound, message: `Method not found: ${message.method}` },
          };
    this.answering++;
    this.send(answer, () => this.answering--);
  }

  /** A notification, best effort (its answer, 202, is read and dropped). */
  private notify(method: string, params: unknown): void {
    this.send({ jsonrpc: '2.0', method, params });
  }

  /**
   * POSTs a message whose answer (202) is read and dropped; given up after {@link ACKNOWLEDGE_TIMEOUT_MS} so that a
   * server that never acknowledges cannot hold a socket for ever. `onDone` runs once, when it ended either way.
   */
  private send(message: unknown, onDone?: () => void): void {
    // The dispatcher may end it synchronously (e.g. closed): `done` must work before the timer exists.
    const state: { ended: boolean; timer?: NodeJS.Timeout } = { ended: false };
    const done = (): void => {
      if (state.ended) return;
      state.ended = true;
      clearTimeout(state.timer);
      onDone?.();
    };
    const handle = dispatchPost(this.dispatcher, this.target, JSON.stringify(message), {
      ...IGNORE_ANSWER,
      onEnd: done,
      onError: done,
    });
    if (state.ended) return;
    state.timer = setTimeout(
      () => handle.abort(new McpExchangeError('timeout', 'the server did not acknowledge the message')),
      ACKNOWLEDGE_TIMEOUT_MS,
    );
    state.timer.unref();
  }
}

/** Closes an answer stream still open {@link ANSWER_STREAM_GRACE_MS} after its request settled. */
function cutAfterGrace(handle: PostHandle, reader: McpAnswerReader): void {
  const cut = setTimeout(() => {
    if (!reader.ended) handle.abort(new McpExchangeError('closed', 'the answer stream stayed open after the answer'));
  }, ANSWER_STREAM_GRACE_MS);
  cut.unref();
}

const IGNORE_ANSWER: ResponseSink = { onHead() {}, onData() {}, onEnd() {}, onError() {} };
