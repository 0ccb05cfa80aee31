/** How the pool talks to an MCP server. `auto`: streamable HTTP first, legacy SSE when the server does not speak it. */
export type McpTransportKind = 'streamable-http' | 'sse' | 'auto';

/** An MCP server as the pool addresses it. One pooled session exists per `url`, owner, caller and headers. */
export interface McpEndpoint {
  /** The server's MCP endpoint (`http://host:port/mcp`, or the SSE URL `.../sse`). */
  url: string;
  /** Default `streamable-http`. */
  transport?: McpTransportKind;
  /**
   * Headers sent on every request of the session (e.g. an API key), secrets already filled. Endpoints with other
   * headers get sessions of their own; pass the same object each time (the pool digests it once per object).
   */
  headers?: Record<string, string>;
  /**
   * The tenant whose tools use the session (null or absent: the platform's). Sessions are never shared between owners
   * (a stateful server keeps each tenant's state apart), and closing one owner's session leaves the others'.
   */
  owner?: string | null;
  /**
   * The tenant a call runs for, when that is not the owner (a tenant calling a platform-wide tool): it gets a session
   * of its own, so a stateful platform server never carries one tenant's state into another's calls. The owner
   * still decides what the session may reach (its outbound scope).
   */
  caller?: string | null;
}

/** Per-request options of the pool. */
export interface McpRequestOptions {
  /** Aborting it cancels the request: the server receives `notifications/cancelled`. */
  signal?: AbortSignal;
  /** Bound on this request alone (default 60 s); the caller's signal, if any, governs the whole call. */
  timeoutMs?: number;
  /** `tools/call` only: the request's `params._meta` (the call's context, see remote-call.context). */
  meta?: Record<string, unknown>;
}

/** What {@link McpClientPool.stats} reports, per server and in all. */
export interface McpPoolStats {
  /** Sessions opened since start (an `initialize` each). */
  totalConnects: number;
  servers: Array<{ url: string; transport: 'streamable-http' | 'sse' | null; connects: number; connected: boolean }>;
}
