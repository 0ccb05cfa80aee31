import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Dispatcher } from 'undici';
import { SseEventReader } from './sse-event.reader';

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
  /** Rejects with McpError(RequestTimeout) after this long, cancelling like an abort. */
  timeoutMs: number;
}

type JsonRpcMessage = { jsonrpc?: string; id?: string | number; method?: string; params?: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };

const ID_PREFIX = 'gw-';
const JSON_TYPE = 'application/json';
const SSE_TYPE = 'text/event-stream';

/**
 * Sends JSON-RPC requests on an initialized streamable-HTTP MCP session straight over undici's dispatcher,
 * for the hot path (`tools/call`). The SDK Client still opens the session, lists tools, pings and holds the
 * standalone GET stream; this only spares each call the SDK transport's WHATWG fetch / web-stream emulation,
 * which cost more than the rest of a call on loopback (bench/execute).
 *
 * Follows the transport spec: POST with `Accept: application/json, text/event-stream`, the session id and
 * protocol version headers; the answer is one JSON body or an SSE stream carrying it. On that stream a server
 * request is answered (`ping` with `{}`, anything else "method not found": this client offers no
 * capabilities), `notifications/tools/list_changed` is passed on, other notifications are ignored. A stream
 * that ends without the answer fails at once as a lost connection (the SDK would wait for the timeout).
 * Failures are thrown as the SDK's own StreamableHTTPError / McpError / undici errors, so one classifier
 * serves both paths. Request ids are strings (`gw-<n>`), so they never collide with the SDK's numeric ids on
 * the same session.
 */
export class McpStreamableExchange {
  private nextId = 0;
  /** Requests in flight, aborted by close(). */
  private readonly pending = new Set<AbortController>();
  private readonly origin: string;
  private readonly path: string;
  private readonly headers: Record<string, string>;

  constructor(
    session: StreamableSession,
    private readonly dispatcher: Dispatcher,
    private readonly onToolsListChanged: () => void,
  ) {
    this.origin = session.url.origin;
    this.path = `${session.url.pathname}${session.url.search}`;
    this.headers = {
      ...session.headers,
      'content-type': JSON_TYPE,
      accept: `${JSON_TYPE}, ${SSE_TYPE}`,
      ...(session.sessionId ? { 'mcp-session-id': session.sessionId } : {}),
      ...(session.protocolVersion ? { 'mcp-protocol-version': session.protocolVersion } : {}),
    };
  }

  /** Sends `method` and resolves with the answer's `result`; a JSON-RPC error rejects as McpError. */
  async request(method: string, params: unknown, options: ExchangeRequestOptions): Promise<unknown> {
    const id = `${ID_PREFIX}${++this.nextId}`;
    const outer = options.signal;
    if (outer?.aborted) throw outer.reason;
    const controller = new AbortController();
    const relay = (): void => controller.abort(outer!.reason);
    outer?.addEventListener('abort', relay, { once: true });
    const timer = setTimeout(() => controller.abort(new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: options.timeoutMs })), options.timeoutMs);
    this.pending.add(controller);
    try {
      return await this.exchange(id, method, params, controller.signal);
    } catch (err) {
      if (!controller.signal.aborted) throw err;
      this.notify('notifications/cancelled', { requestId: id, reason: String((controller.signal.reason as Error)?.message ?? controller.signal.reason) });
      throw controller.signal.reason;
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', relay);
      this.pending.delete(controller);
    }
  }

  /** Fails every request in flight as the SDK does when its transport closes (McpError ConnectionClosed). */
  close(): void {
    for (const controller of this.pending) controller.abort(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
    this.pending.clear();
  }

  private async exchange(id: string, method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
    const res = await this.post({ jsonrpc: '2.0', id, method, params }, signal);
    if (res.statusCode < 200 || res.statusCode >= 300) {
      const text = await res.body.text().catch(() => '');
      throw new StreamableHTTPError(res.statusCode, `Error POSTing to endpoint: ${text}`);
    }
    const type = mediaType(res.headers['content-type']);
    if (type === SSE_TYPE) return this.answerFromStream(id, res.body);
    const text = await res.body.text();
    if (type !== JSON_TYPE) throw new Error(`MCP server answered ${res.statusCode} with content-type "${String(res.headers['content-type'])}", expected JSON or an SSE stream`);
    const messages = JSON.parse(text) as JsonRpcMessage | JsonRpcMessage[];
    const answer = (Array.isArray(messages) ? messages : [messages]).find((m) => m.id === id && !m.method);
    if (!answer) throw new Error(`MCP server's JSON answer carries no response to request ${id}`);
    return resultOf(answer);
  }

  /** Reads the SSE stream until the response to `id`; handles what else the server sends on it. */
  private answerFromStream(id: string, body: Dispatcher.ResponseData['body']): Promise<unknown> {
    const reader = new SseEventReader();
    body.setEncoding('utf8');
    return new Promise<unknown>((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void): void => {
        if (settled) return;
        settled = true;
        fn();
      };
      body.on('data', (chunk: string) => {
        if (settled) return; // the rest of the stream is read and dropped, so the socket stays reusable
        for (const event of reader.push(chunk)) {
          // Other event types are not JSON-RPC; an empty data field primes resumption (spec 2025-11-25).
          if ((event.event !== undefined && event.event !== 'message') || event.data === '') continue;
          let parsed: JsonRpcMessage | JsonRpcMessage[];
          try {
            parsed = JSON.parse(event.data) as JsonRpcMessage | JsonRpcMessage[];
          } catch {
            return settle(() => reject(new Error(`MCP server sent an SSE event that is not JSON: ${event.data.slice(0, 200)}`)));
          }
          for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
            if (message.id === id && !message.method) {
              return settle(() => {
                try {
                  resolve(resultOf(message));
                } catch (err) {
                  reject(err);
                }
              });
            }
            this.onServerMessage(message);
          }
        }
      });
      body.on('end', () => settle(() => reject(new McpError(ErrorCode.ConnectionClosed, `the answer stream of request ${id} ended without the answer`))));
      body.on('error', (err: Error) => settle(() => reject(err)));
    });
  }

  private onServerMessage(message: JsonRpcMessage): void {
    if (message.method === undefined) return;
    if (message.id === undefined) {
      if (message.method === 'notifications/tools/list_changed') this.onToolsListChanged();
      return;
    }
    // A request from the server: this client declares no capabilities, so only ping gets a result.
    const answer =
      message.method === 'ping'
        ? { jsonrpc: '2.0', id: message.id, result: {} }
        : { jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.MethodNotFound, message: `Method not found: ${message.method}` } };
    this.send(answer);
  }

  /** A notification, best effort (its answer, 202, is drained). */
  private notify(method: string, params: unknown): void {
    this.send({ jsonrpc: '2.0', method, params });
  }

  private send(message: unknown): void {
    this.post(message, undefined).then(
      (res) => res.body.dump().catch(() => undefined),
      () => undefined,
    );
  }

  private post(message: unknown, signal: AbortSignal | undefined): Promise<Dispatcher.ResponseData> {
    return this.dispatcher.request({
      origin: this.origin,
      path: this.path,
      method: 'POST',
      headers: this.headers,
      body: JSON.stringify(message),
      signal,
      // The caller's signal and timeout bound the exchange; an SSE answer may legitimately stay quiet for long.
      bodyTimeout: 0,
      headersTimeout: 0,
    });
  }
}

function resultOf(message: JsonRpcMessage): unknown {
  if (message.error) throw new McpError(message.error.code, message.error.message, message.error.data);
  return message.result;
}

/** The media type of a content-type header, lowercased, without parameters. */
function mediaType(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value?.split(';', 1)[0].trim().toLowerCase();
}
