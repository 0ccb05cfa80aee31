import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolResult,
  CallToolResultSchema,
  ErrorCode,
  McpError,
  PaginatedResultSchema,
  Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import type { Dispatcher } from 'undici';
import { untilAborted } from '@app/common/abort-race';
import type { OutboundFetch } from '../outbound/outbound-http.agent';
import type { McpTransportKind } from './mcp-endpoint';
import { McpStreamableExchange } from './mcp-streamable.exchange';
import { boundedMcpFetch } from './mcp-bounded.fetch';
import { McpAnsweredError } from './mcp-exchange.errors';

/** What a connection needs from the pool. */
export interface McpConnectionOptions {
  /** The URL as the pool keys it (the endpoint's `url` string). */
  key: string;
  fetch: OutboundFetch;
  /**
   * The same outbound Agent the fetch uses, for the lean `tools/call` exchange (McpStreamableExchange);
   * without it `tools/call` goes through the SDK Client too (MCP_TOOLS_CALL_CLIENT=sdk).
   */
  dispatcher?: Dispatcher;
  headers?: Record<string, string>;
  /** Bound on `initialize` (ms). */
  connectTimeoutMs: number;
  /** Called once when the session can no longer be used (transport closed, SSE stream broken). */
  onLost: (connection: McpConnection) => void;
  /** Called on `notifications/tools/list_changed`. */
  onToolsListChanged: () => void;
}

const CLIENT_INFO = { name: 'agent-tool-gateway', version: '0.1.0' };
const PROBE_TIMEOUT_MS = 5000;
/** Node's timers run on the event loop's cached clock: one may fire a millisecond or two before a fresh reading says. */
const TIMER_SLACK_MS = 5;
/** The GET stream comes back sooner than the SDK default (1 s): its failure is how a vanished server shows. */
const STREAM_RECONNECTION = {
  initialReconnectionDelay: 250,
  maxReconnectionDelay: 5000,
  reconnectionDelayGrowFactor: 2,
  maxRetries: 2,
};

/** One initialized MCP session (an SDK Client on one transport), shared by every caller of its server. */
export class McpConnection {
  private lostReported = false;
  /** Set when the SDK Client's transport closed: its pending requests then fail with ConnectionClosed (-32000). */
  private transportClosed = false;
  private probing = false;
  /** Set once initialized: before that, failures belong to the connect and are thrown from it. */
  private ready = false;
  /** Streamable HTTP only: `tools/call` straight over undici (see McpStreamableExchange). */
  private exchange?: McpStreamableExchange;
  /** Requests in flight (`tools/call` and `tools/list`), and who waits for there to be none (see {@link whenIdle}). */
  private requestsInFlight = 0;
  private readonly idleWaiters = new Set<() => void>();

  private constructor(
    /** The pool's key for the server: the endpoint URL as registered. */
    readonly url: string,
    readonly client: Client,
    readonly transportKind: 'streamable-http' | 'sse',
    private readonly transport: Transport,
    private readonly onLost: (connection: McpConnection) => void,
  ) {}

  /** Whether the session was lost; a lost connection is never handed out again. */
  get lost(): boolean {
    return this.lostReported;
  }

  /**
   * Connects and initializes. `auto` tries streamable HTTP first and falls back to SSE when the server
   * answers the POST with a 4xx (the fallback the MCP SDK documents for servers that predate streamable HTTP).
   */
  static async open(url: URL, kind: McpTransportKind, options: McpConnectionOptions): Promise<McpConnection> {
    if (kind !== 'auto') return McpConnection.openWith(url, kind, options);
    try {
      return await McpConnection.openWith(url, 'streamable-http', options);
    } catch (err) {
      const status = err instanceof StreamableHTTPError ? err.code : undefined;
      if (status === undefined || status < 400 || status >= 500) throw err;
      return McpConnection.openWith(url, 'sse', options);
    }
  }

  private static async openWith(
    url: URL,
    kind: 'streamable-http' | 'sse',
    options: McpConnectionOptions,
  ): Promise<McpConnection> {
    const headers = withoutSessionHeaders(options.headers);
    const requestInit = headers ? { headers } : undefined;
    const fetch = boundedMcpFetch(options.fetch);
    const transport: Transport =
      kind === 'sse'
        ? new SSEClientTransport(url, { fetch, requestInit })
        : new StreamableHTTPClientTransport(url, {
            fetch,
            requestInit,
            reconnectionOptions: STREAM_RECONNECTION,
          });
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const connection = new McpConnection(options.key, client, kind, transport, options.onLost);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => options.onToolsListChanged());
    client.onclose = () => {
      connection.transportClosed = true;
      connection.markLost();
    };
    client.onerror = (err) => {
      // Legacy SSE: the stream is the session's only way back; nothing could ever answer on it again.
      if (kind === 'sse') {
        if (err instanceof SseError) connection.markLost();
        return;
      }
      // Streamable HTTP: the SDK only reports broken or ended streams here (a request whose answer stream ended
      // waits until its timeout), and they often mean the server went away. A ping tells: when it fails the
      // session is dropped and its waiting requests fail at once; when it succeeds nothing changes.
      connection.probe();
    };
    try {
      await connectWithin(client, transport, url, options.connectTimeoutMs);
      if (transport instanceof StreamableHTTPClientTransport && options.dispatcher) {
        const session = {
          url,
          sessionId: transport.sessionId,
          protocolVersion: transport.protocolVersion,
          headers,
        };
        connection.exchange = new McpStreamableExchange(session, options.dispatcher, options.onToolsListChanged);
      }
      connection.ready = true;
    } catch (err) {
      connection.lostReported = true;
      await client.close().catch(() => undefined);
      throw err;
    }
    return connection;
  }

  /**
   * `tools/call` (with `meta` as `params._meta`). On streamable HTTP it goes straight over undici (McpStreamableExchange); on legacy SSE through
   * the SDK Client. The result is checked against the spec's CallToolResult shape either way.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    timeoutMs: number,
    meta?: Record<string, unknown>,
  ): Promise<CallToolResult> {
    const params = meta ? { name, arguments: args, _meta: meta } : { name, arguments: args };
    return this.tracked(async () => {
      if (this.exchange) {
        const result = await this.exchange.request('tools/call', params, { signal, timeoutMs });
        return CallToolResultSchema.parse(result);
      }
      const sent = performance.now();
      try {
        return (await untilAborted(signal, (requestSignal) =>
          this.client.callTool(params, undefined, { signal: requestSignal, timeout: timeoutMs }),
        )) as CallToolResult;
      } catch (err) {
        throw this.answeredOrLocal(err, performance.now() - sent >= timeoutMs - TIMER_SLACK_MS);
      }
    });
  }

  /**
   * The SDK Client rejects with the same McpError for a JSON-RPC error the server answered and for its own failures,
   * whose codes servers use too (-32000 is the usual implementation-defined server error): ConnectionClosed after
   * its transport closed (the Client's onclose runs before it rejects what was pending) and RequestTimeout once
   * `timeoutMs` has passed. Any other McpError is what the server said (McpAnsweredError), so a server's
   * "-32000 Database unavailable" is reported as such, not as a lost connection to send the call again over.
   */
  private answeredOrLocal(err: unknown, timeoutPassed: boolean): unknown {
    if (!(err instanceof McpError) || err instanceof McpAnsweredError) return err;
    const code = err.code as ErrorCode;
    const local =
      (code === ErrorCode.ConnectionClosed && this.transportClosed) ||
      (code === ErrorCode.RequestTimeout && timeoutPassed);
    return local ? err : McpAnsweredError.of(err);
  }

  /** Whether a request (`tools/call`, `tools/list`) is in flight on this session. */
  get busy(): boolean {
    return this.requestsInFlight > 0;
  }

  /** Resolves once no request is in flight on this session, or after `maxWaitMs`. */
  whenIdle(maxWaitMs: number): Promise<void> {
    if (this.requestsInFlight === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.idleWaiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, maxWaitMs);
      timer.unref();
      this.idleWaiters.add(done);
    });
  }

  /**
   * One page of `tools/list`, through the SDK Client. Each tool is any object, not checked against the spec's Tool
   * shape (the sync checks every tool and rejects the unusable ones one by one), and only the spec's members are kept
   * (`title` and `description` when they are text, the spec's annotations). The
   * SDK's `listTools` would fail the whole page over one tool (an inputSchema without `"type": "object"`, a
   * `required` that is no array, a malformed icon), and compile every output schema the server sends.
   */
  async listTools(
    cursor: string | undefined,
    signal: AbortSignal | undefined,
    timeoutMs: number,
  ): Promise<{ tools: Tool[]; nextCursor?: string }> {
    const page = await this.tracked(() =>
      untilAborted(signal, (requestSignal) =>
        this.client.request({ method: 'tools/list', params: cursor ? { cursor } : undefined }, UNCHECKED_TOOLS_PAGE, {
          signal: requestSignal,
          timeout: timeoutMs,
        }),
      ),
    );
    const tools = page.tools.map((t) => ({
      name: t.name,
      title: typeof t.title === 'string' ? t.title : undefined,
      description: typeof t.description === 'string' ? t.description : undefined,
      inputSchema: t.inputSchema,
      annotations: annotationsOf(t.annotations),
      // Not read, but part of the listing's hash (the scheduled repair compares it), as they were before.
      outputSchema: t.outputSchema,
      icons: t.icons,
      execution: t.execution,
      _meta: t._meta,
    }));
    return { tools: tools as Tool[], nextCursor: page.nextCursor };
  }

  /** Runs one request counted as in flight, so that a retired session is closed only after it ({@link whenIdle}). */
  private async tracked<T>(request: () => Promise<T>): Promise<T> {
    this.requestsInFlight++;
    try {
      return await request();
    } finally {
      if (--this.requestsInFlight === 0) for (const wake of this.idleWaiters) wake();
    }
  }

  /**
   * Ends the session: for streamable HTTP a DELETE (best effort, waiting at most `graceMs`; none when 0, e.g.
   * for a session already lost), then closes the transport, which rejects the requests still waiting on it.
   * `cutExchange` false leaves the `tools/call` requests of the exchange to end on their own: each is an HTTP
   * exchange of its own, bounded by its timeout, that fails by itself if the server is gone, and that a server
   * still up (draining for a redeploy, refusing only new connections) answers.
   */
  async close(graceMs = 1000, cutExchange = true): Promise<void> {
    this.lostReported = true;
    if (graceMs > 0 && this.transport instanceof StreamableHTTPClientTransport && this.transport.sessionId) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
      await Promise.race([this.transport.terminateSession().catch(() => undefined), grace]);
      clearTimeout(timer);
    }
    if (cutExchange) this.exchange?.close();
    await this.client.close().catch(() => undefined);
  }

  /** Stops handing this session out without closing it yet (see McpClientPool.drop). */
  retire(): void {
    this.lostReported = true;
  }

  private probe(): void {
    if (!this.ready || this.probing || this.lostReported) return;
    this.probing = true;
    this.client
      .ping({ timeout: PROBE_TIMEOUT_MS })
      .then(
        () => undefined,
        (err: unknown) => {
          // A server that answers the ping with a JSON-RPC error (e.g. no ping handler) is alive.
          const answered =
            err instanceof McpError &&
            (err.code as ErrorCode) !== ErrorCode.RequestTimeout &&
            (err.code as ErrorCode) !== ErrorCode.ConnectionClosed;
          if (!answered) this.markLost();
        },
      )
      .finally(() => (this.probing = false));
  }

  private markLost(): void {
    if (!this.ready || this.lostReported) return;
    this.lostReported = true;
    this.onLost(this);
  }
}

/** A `tools/list` page whose tools are any JSON objects (see {@link McpConnection.listTools}). */
const UNCHECKED_TOOLS_PAGE = PaginatedResultSchema.extend({ tools: z.array(z.looseObject({})) });

/** The members of the spec's ToolAnnotations (others are dropped, as the SDK's Tool shape drops them). */
const ANNOTATION_KEYS = ['title', 'readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];

function annotationsOf(annotations: unknown): Record<string, unknown> | undefined {
  if (typeof annotations !== 'object' || annotations === null || Array.isArray(annotations)) return undefined;
  const kept = ANNOTATION_KEYS.filter((k) => (annotations as Record<string, unknown>)[k] !== undefined);
  return Object.fromEntries(kept.map((k) => [k, (annotations as Record<string, unknown>)[k]]));
}

/** Headers the transport sets for the session itself: a tool's or service's own value would replace them (SDK). */
const SESSION_HEADERS = new Set(['mcp-session-id', 'mcp-protocol-version', 'last-event-id']);

/**
 * The endpoint's headers without the session's own (any letter case): an admin's `Mcp-Session-Id` would otherwise
 * be sent instead of the session's on every SDK request (the handshake fails with 404, or a request lands in
 * another session) and beside it on the exchange's.
 */
function withoutSessionHeaders(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!headers) return undefined;
  const kept = Object.entries(headers).filter(([name]) => !SESSION_HEADERS.has(name.toLowerCase()));
  return kept.length === Object.keys(headers).length ? headers : Object.fromEntries(kept);
}

/**
 * `client.connect` bounded as a whole: the SDK's timeout covers the `initialize` request only, not the transport's
 * start (the legacy SSE stream's `endpoint` event) nor the `notifications/initialized` POST, and a server that never
 * finishes either would leave the pool's shared connect (and every later call to the server) waiting forever. On
 * expiry the transport is closed, which aborts what it has in flight.
 */
async function connectWithin(client: Client, transport: Transport, url: URL, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const connecting = client.connect(transport, { timeout: ms });
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      connecting.catch(() => undefined);
      reject(
        new Error(`MCP server ${url.origin}${url.pathname} did not complete the session handshake within ${ms} ms`),
      );
    }, ms);
  });
  try {
    await Promise.race([connecting, expired]);
  } finally {
    clearTimeout(timer);
  }
}
