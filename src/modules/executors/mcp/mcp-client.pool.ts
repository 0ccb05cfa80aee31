import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { untilAborted } from '@app/common/abort-race';
import { WhileBusyInterval } from '@app/common/scheduling/while-busy.interval';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { createHash } from 'node:crypto';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { OutboundHttpAgent } from '../outbound/outbound-http.agent';
import { TOOL_MAX_RESPONSE_BYTES, ToolCallError } from '../tool-executor';
import { ToolErrorClass } from '../tool-error-class';
import { McpConnection } from './mcp-connection';
import type { McpEndpoint, McpPoolStats, McpRequestOptions } from './mcp-endpoint';
import { classifyMcpConnectError, classifyMcpRequestError, isSessionLost } from './mcp-error.classifier';

/** A page of `tools/list`. */
export interface McpToolsPage {
  tools: Tool[];
  nextCursor?: string;
}

interface PoolEntry {
  /** The URL, plus the owner, the caller and a digest of the headers when the endpoint has them (see sessionKeyOf). */
  key: string;
  url: string;
  connection?: McpConnection;
  connecting?: Promise<McpConnection>;
  /** The transport that worked last time (`auto` is resolved once). */
  resolvedTransport?: 'streamable-http' | 'sse';
  connects: number;
  /** When a call last asked for the session (`performance.now()`); see MCP_SESSION_IDLE_MS. */
  usedAt: number;
}

const CONNECT_TIMEOUT_MS = 10_000;
/**
 * A dropped session is closed this long after it stops being handed out: requests still being sent on it
 * fail with their own, precise error (refused: never sent) rather than a generic "connection closed" that
 * must count as possibly delivered; requests stranded on a dead stream fail when it closes.
 */
const DROPPED_SESSION_CLOSE_DELAY_MS = 250;
const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** MCP_SESSION_IDLE_MS's default, for a pool made without the gateway's config (tests). */
const DEFAULT_SESSION_IDLE_MS = 600_000;
const MAX_LIST_PAGES = 100;
/** Most tools one server may list: each becomes a registry row, written in one transaction. */
const MAX_LISTED_TOOLS = 10_000;

/**
 * The MCP client side of the gateway, and the only place that uses the SDK client. One initialized session
 * per server URL and set of headers is shared by every caller (two tools that send different credentials to
 * one server never share a session): concurrent first calls await the same connect; a lost session
 * (transport closed, SSE stream broken, 404 / unknown session) is dropped and re-opened on the next call, and
 * a request refused because its session was gone is sent once more on a fresh one. Every connection goes
 * through the outbound guard (checked when the session opens, and per socket by the shared Agent).
 * Failures are thrown as ToolCallError.
 */
@Injectable()
export class McpClientPool implements OnApplicationShutdown {
  private readonly logger = new Logger(McpClientPool.name);
  private readonly entries = new Map<string, PoolEntry>();
  private readonly listChangedListeners = new Map<string, Set<() => void>>();
  private readonly dropped = new Map<McpConnection, NodeJS.Timeout>();
  /** Sessions an admin's change retired, closed once their calls in flight have ended. */
  private readonly closingWhenIdle = new Set<McpConnection>();
  private readonly headerDigests = new WeakMap<Record<string, string>, string>();
  private totalConnects = 0;

  private readonly toolsCallClient: GatewayConfig['mcp']['toolsCallClient'];
  private readonly sessionIdleMs: number;
  /** Closes sessions unused for MCP_SESSION_IDLE_MS while the pool holds any (see {@link closeIdle}). */
  private readonly idleSweep: WhileBusyInterval | null;

  constructor(
    private readonly outbound: OutboundHttpAgent,
    @Inject(GATEWAY_CONFIG) config?: { mcp: Pick<GatewayConfig['mcp'], 'toolsCallClient' | 'sessionIdleMs'> },
  ) {
    this.toolsCallClient = config?.mcp.toolsCallClient ?? 'exchange';
    this.sessionIdleMs = config?.mcp.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
    this.idleSweep =
      this.sessionIdleMs > 0
        ? new WhileBusyInterval(
            Math.max(50, Math.min(Math.floor(this.sessionIdleMs / 2), 60_000)),
            () => this.entries.size > 0,
            () => this.closeIdle(),
          )
        : null;
  }

  /** Calls a tool; aborting `signal` sends `notifications/cancelled` to the server. */
  callTool(
    endpoint: McpEndpoint,
    name: string,
    args: Record<string, unknown>,
    options: McpRequestOptions = {},
  ): Promise<CallToolResult> {
    return this.withSession(endpoint, options.signal, (connection) =>
      connection.callTool(name, args, options.signal, options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, options.meta),
    );
  }

  /** One page of `tools/list`. */
  listTools(endpoint: McpEndpoint, options: McpRequestOptions & { cursor?: string } = {}): Promise<McpToolsPage> {
    return this.withSession(endpoint, options.signal, async (connection) => {
      const page = await connection.listTools(
        options.cursor,
        options.signal,
        options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      );
      return { tools: page.tools, nextCursor: page.nextCursor };
    });
  }

  /**
   * Every tool of the server, following `nextCursor` (at most 100 pages; a repeated cursor ends the walk). Each page
   * is bounded by TOOL_MAX_RESPONSE_BYTES, and so are all pages together, with at most 10,000 tools: a hostile server
   * paging out huge or endless lists fails with MCP_PROTOCOL_ERROR instead of filling the memory and the registry.
   * `timeoutMs` bounds each page, `withinMs` (when given) the whole walk: a server answering every page just within
   * its timeout fails with MCP_TIMEOUT once `withinMs` is spent, instead of holding its caller 100 page timeouts long.
   */
  async listAllTools(endpoint: McpEndpoint, options: McpRequestOptions & { withinMs?: number } = {}): Promise<Tool[]> {
    const tools: Tool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    let bytes = 0;
    const pageMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const started = performance.now();
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const left = options.withinMs === undefined ? pageMs : options.withinMs - (performance.now() - started);
      if (left <= 0) throw listingTimedOut(endpoint.url, options.withinMs!, page);
      let result: McpToolsPage;
      try {
        result = await this.listTools(endpoint, { ...options, cursor, timeoutMs: Math.min(pageMs, left) });
      } catch (err) {
        if (left < pageMs && err instanceof ToolCallError && err.errorClass === ToolErrorClass.MCP_TIMEOUT)
          throw listingTimedOut(endpoint.url, options.withinMs!, page);
        throw err;
      }
      bytes += Buffer.byteLength(JSON.stringify(result.tools));
      if (bytes > TOOL_MAX_RESPONSE_BYTES || tools.length + result.tools.length > MAX_LISTED_TOOLS) {
        const what =
          bytes > TOOL_MAX_RESPONSE_BYTES ? `${TOOL_MAX_RESPONSE_BYTES} bytes of tools` : `${MAX_LISTED_TOOLS} tools`;
        throw new ToolCallError(
          `MCP server ${endpoint.url} lists more than ${what} (page ${page + 1}); split its tools over several servers.`,
          ToolErrorClass.MCP_PROTOCOL_ERROR,
          { transient: false, reachedRemote: true },
        );
      }
      tools.push(...result.tools);
      if (!result.nextCursor || seen.has(result.nextCursor)) break;
      seen.add(result.nextCursor);
      cursor = result.nextCursor;
    }
    return tools;
  }

  /**
   * Registers `listener` for `notifications/tools/list_changed` from the server at `url` (on the current and
   * every later session). Returns the function that unregisters it.
   */
  onToolsListChanged(url: string, listener: () => void): () => void {
    let set = this.listChangedListeners.get(url);
    if (!set) this.listChangedListeners.set(url, (set = new Set()));
    set.add(listener);
    return () => {
      // The URL's entry goes with its last listener: else every endpoint ever watched (each address a Nacos service's
      // instances had) kept one for good.
      if (set.delete(listener) && set.size === 0 && this.listChangedListeners.get(url) === set)
        this.listChangedListeners.delete(url);
    };
  }

  /**
   * Retires the sessions `owner` (a tenant, or null: the platform) has to `url`, for every caller (an admin changed
   * or removed the service), or every session: the next call opens a new one, and each retired session is closed once its requests in
   * flight (`tools/call`, a sync's `tools/list`) have ended (at most {@link DEFAULT_REQUEST_TIMEOUT_MS}), so a change never cuts a running
   * call, a side-effecting one included, into an unknown outcome. Another owner's session to the same URL stays open.
   */
  async close(url?: string, owner: string | null = null): Promise<void> {
    const mine = (key: string, keyUrl: string) => url === undefined || (keyUrl === url && ownerOfKey(key) === owner);
    const entries = [...this.entries.values()].filter((e) => mine(e.key, e.url));
    await Promise.all([...entries.map((entry) => this.closeEntry(entry, 'when-idle')), ...this.closeDropped(mine)]);
  }

  /** Counters for tests, health and benchmarks. */
  stats(): McpPoolStats {
    return {
      totalConnects: this.totalConnects,
      servers: [...this.entries.values()].map((e) => ({
        url: e.url,
        transport: e.connection?.transportKind ?? e.resolvedTransport ?? null,
        connects: e.connects,
        connected: !!e.connection && !e.connection.lost,
      })),
    };
  }

  /**
   * Closes the sessions no call asked for in MCP_SESSION_IDLE_MS, once their requests in flight end (the next call
   * opens a new one). Else every set of headers a server was ever called with (a rotated secret's old value), every
   * calling tenant and every endpoint a tool no longer has kept its session, and its server's memory, for good.
   * Of the sessions to a server watched for `notifications/tools/list_changed`, the open one used last stays: its
   * stream is how the server tells of changes. Its others (other headers, other calling tenants) go like any: kept
   * too, they grew with every tenant calling the service and every secret rotated in its headers, for good.
   */
  private async closeIdle(): Promise<void> {
    const before = performance.now() - this.sessionIdleMs;
    const listening = new Map<string, PoolEntry>();
    for (const e of this.entries.values()) {
      if (!e.connection || e.connection.lost || !(this.listChangedListeners.get(e.url)?.size ?? 0)) continue;
      const kept = listening.get(e.url);
      if (!kept || e.usedAt > kept.usedAt) listening.set(e.url, e);
    }
    const idle = [...this.entries.values()].filter(
      (e) => e.usedAt < before && !e.connecting && listening.get(e.url) !== e,
    );
    await Promise.all(idle.map((entry) => this.closeEntry(entry, 'when-idle')));
  }

  /**
   * Shutdown, once the HTTP server has answered the requests in flight (see shutdown-drain.ts): every session closes
   * now, the calls of what still runs included (the journal's recovery owns their outcome).
   */
  async onApplicationShutdown(): Promise<void> {
    this.idleSweep?.stop();
    const closing = [...this.entries.values()].map((entry) => this.closeEntry(entry, 'now'));
    for (const connection of this.closingWhenIdle) closing.push(connection.close(0));
    this.closingWhenIdle.clear();
    await Promise.all([...closing, ...this.closeDropped(() => true)]);
  }

  /**
   * Runs `fn` on the server's session. A request that failed because the session was gone is retried once on
   * a fresh session; nothing else is retried here.
   */
  private async withSession<T>(
    endpoint: McpEndpoint,
    outer: AbortSignal | undefined,
    fn: (connection: McpConnection) => Promise<T>,
  ): Promise<T> {
    if (outer?.aborted) throw classifyMcpRequestError(outer.reason, endpoint.url, outer);
    for (let attempt = 0; ; attempt++) {
      const connection = await this.acquire(endpoint, outer);
      try {
        return await fn(connection);
      } catch (err) {
        if (attempt === 0 && !outer?.aborted && isSessionLost(err)) {
          this.drop(connection);
          continue;
        }
        const error = classifyMcpRequestError(err, endpoint.url, outer);
        // The server could not be reached at all: its session is most likely gone with it; start afresh next time.
        if (!error.reachedRemote) this.drop(connection);
        throw error;
      }
    }
  }

  /** The open session of the endpoint's URL, opening it (once, for every concurrent caller) when needed. */
  private acquire(endpoint: McpEndpoint, signal: AbortSignal | undefined): Promise<McpConnection> {
    const key = this.sessionKeyOf(endpoint);
    let entry = this.entries.get(key);
    if (!entry) {
      this.entries.set(key, (entry = { key, url: endpoint.url, connects: 0, usedAt: 0 }));
      this.idleSweep?.start();
    }
    entry.usedAt = performance.now();
    const ready = entry.connection;
    if (ready && !ready.lost) return Promise.resolve(ready);
    const current = entry;
    current.connecting ??= this.connect(current, endpoint).finally(() => (current.connecting = undefined));
    return untilAborted(signal, () => current.connecting!).catch((err: unknown) => {
      throw classifyMcpConnectError(err, endpoint.url, signal);
    });
  }

  private async connect(entry: PoolEntry, endpoint: McpEndpoint): Promise<McpConnection> {
    const url = URL.canParse(endpoint.url) ? new URL(endpoint.url) : null;
    if (!url) {
      throw new ToolCallError(
        `MCP server URL "${endpoint.url}" is not a valid absolute URL; fix the tool's endpoint.`,
        ToolErrorClass.INVALID_REQUEST,
        {
          transient: false,
          reachedRemote: false,
        },
      );
    }
    const outbound = this.outbound.scope(endpoint.owner ?? null);
    await outbound.guard.assertAllowed(url);
    const connection = await McpConnection.open(
      url,
      entry.resolvedTransport ?? endpoint.transport ?? 'streamable-http',
      {
        key: entry.key,
        fetch: outbound.fetch,
        dispatcher: this.toolsCallClient === 'exchange' ? outbound.dispatcher : undefined,
        headers: endpoint.headers,
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
        onLost: (lost) => this.drop(lost),
        onToolsListChanged: () => this.notifyToolsListChanged(entry.url),
      },
    );
    entry.connects++;
    this.totalConnects++;
    entry.resolvedTransport = connection.transportKind;
    if (this.entries.get(entry.key) !== entry) {
      // The pool was closed while connecting.
      void connection.close();
      throw new Error(`MCP pool closed the session to ${entry.url} while it was opening`);
    }
    entry.connection = connection;
    return connection;
  }

  /** Forgets a lost session at once (the next call opens a new one) and closes it a little later. */
  private drop(connection: McpConnection): void {
    const entry = this.entries.get(connection.url);
    if (entry?.connection === connection) entry.connection = undefined;
    if (this.dropped.has(connection)) return;
    connection.retire();
    this.logger.debug(`MCP session to ${urlOfKey(connection.url)} lost; it will be re-opened on the next call`);
    const timer = setTimeout(() => {
      this.dropped.delete(connection);
      // Its tools/call requests in flight are left to finish: a call that could not connect says nothing of them.
      void connection.close(0, false);
    }, DROPPED_SESSION_CLOSE_DELAY_MS);
    timer.unref();
    this.dropped.set(connection, timer);
  }

  private closeDropped(mine: (key: string, url: string) => boolean): Promise<void>[] {
    const closing: Promise<void>[] = [];
    for (const [connection, timer] of this.dropped) {
      if (!mine(connection.url, urlOfKey(connection.url))) continue;
      clearTimeout(timer);
      this.dropped.delete(connection);
      closing.push(connection.close(0));
    }
    return closing;
  }

  private async closeEntry(entry: PoolEntry, when: 'now' | 'when-idle'): Promise<void> {
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
    const connection = entry.connection ?? (await entry.connecting?.catch(() => undefined));
    entry.connection = undefined;
    if (!connection) return;
    if (when === 'now') return connection.close();
    connection.retire();
    if (!connection.busy) return connection.close();
    this.closingWhenIdle.add(connection);
    void connection.whenIdle(DEFAULT_REQUEST_TIMEOUT_MS).then(async () => {
      if (this.closingWhenIdle.delete(connection)) await connection.close(); // else shutdown closed it meanwhile
    });
  }

  /**
   * The session key of an endpoint: its URL, its owner when a tenant, its caller when another tenant than the owner,
   * and a digest of its headers when it has any (the digest, never the values, appears in the key; computed once per
   * headers object).
   */
  private sessionKeyOf(endpoint: McpEndpoint): string {
    let owned = endpoint.owner ? `${endpoint.url} ${OWNER}${encodeURIComponent(endpoint.owner)}` : endpoint.url;
    if (endpoint.caller && endpoint.caller !== endpoint.owner)
      owned = `${owned} ${CALLER}${encodeURIComponent(endpoint.caller)}`;
    const headers = endpoint.headers;
    if (!headers) return owned;
    let digest = this.headerDigests.get(headers);
    if (digest === undefined) {
      const canonical = JSON.stringify(
        Object.entries(headers)
          .map(([k, v]) => [k.toLowerCase(), v])
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      );
      digest = createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
      this.headerDigests.set(headers, digest);
    }
    return `${owned} headers:${digest}`;
  }

  private notifyToolsListChanged(url: string): void {
    for (const listener of this.listChangedListeners.get(url) ?? []) {
      try {
        listener();
      } catch (err) {
        this.logger.warn(`tools/list_changed listener for ${url} failed: ${(err as Error).message}`);
      }
    }
  }
}

/** A `tools/list` walk that did not end within its time: `pages` pages had been read. */
function listingTimedOut(url: string, withinMs: number, pages: number): ToolCallError {
  return new ToolCallError(
    `MCP server ${url} did not list all its tools within ${withinMs} ms (${pages} page${pages === 1 ? '' : 's'} read); its tools/list must answer faster, or in fewer pages.`,
    ToolErrorClass.MCP_TIMEOUT,
    { transient: true, reachedRemote: true },
  );
}

const OWNER = 'owner:';
const CALLER = 'caller:';

/** The owner part of a session key (null: the platform's). */
function ownerOfKey(key: string): string | null {
  const part = key.split(' ').find((p) => p.startsWith(OWNER));
  return part === undefined ? null : decodeURIComponent(part.slice(OWNER.length));
}

/** The URL part of a session key. */
function urlOfKey(key: string): string {
  const space = key.indexOf(' ');
  return space < 0 ? key : key.slice(0, space);
}
