/**
 * The `errorClass` values executors put on a {@link ToolCallError}. Tool logs and metrics group by them;
 * the retry policy reads only `transient` / `reachedRemote`, never the class (except `TIMEOUT`).
 */
export const ToolErrorClass = {
  /** The URL's scheme, host or resolved address is not allowed (loopback, private, link-local, ...). */
  OUTBOUND_BLOCKED: 'OUTBOUND_BLOCKED',
  /** The host name did not resolve (ENOTFOUND: not transient; EAI_AGAIN: transient). */
  DNS_FAILED: 'DNS_FAILED',
  /** Nothing listens on the remote port (ECONNREFUSED); the request was never sent. */
  CONNECTION_REFUSED: 'CONNECTION_REFUSED',
  /** The TCP/TLS connect did not complete; the request was never sent. */
  CONNECT_TIMEOUT: 'CONNECT_TIMEOUT',
  /** The TLS handshake failed (an untrusted, expired or mismatched certificate, TLS to a plain port); never sent. */
  TLS_FAILED: 'TLS_FAILED',
  /** The connection broke after the request may have been sent (reset, closed early). */
  CONNECTION_LOST: 'CONNECTION_LOST',
  /** The call's outer budget ran out; the in-flight attempt was aborted. */
  TIMEOUT: 'TIMEOUT',
  /** The caller cancelled the call (outer signal). */
  CANCELLED: 'CANCELLED',
  /** The remote answered 4xx (not 408/429): the request itself is wrong; retrying cannot help. */
  HTTP_CLIENT_ERROR: 'HTTP_CLIENT_ERROR',
  /** The remote answered 408, 429 or 5xx. */
  HTTP_RETRYABLE: 'HTTP_RETRYABLE',
  /** The remote answered a redirect; HTTP tools never follow redirects. */
  HTTP_REDIRECT: 'HTTP_REDIRECT',
  /** The response body exceeded the executor's size limit. */
  RESPONSE_TOO_LARGE: 'RESPONSE_TOO_LARGE',
  /** The response body could not be decoded (a Content-Encoding the gateway does not know, or corrupt data). */
  RESPONSE_UNREADABLE: 'RESPONSE_UNREADABLE',
  /** A header template references a `${secret:NAME}` that TOOL_SECRETS does not define. */
  SECRET_MISSING: 'SECRET_MISSING',
  /** The tenant's secrets could not be read (a database failure); nothing was sent, worth another attempt. */
  SECRETS_UNAVAILABLE: 'SECRETS_UNAVAILABLE',
  /** A built-in's statement the gateway's database refused as busy or unreachable; worth another attempt. */
  DATABASE_UNAVAILABLE: 'DATABASE_UNAVAILABLE',
  /** The tool's definition or the arguments cannot form a request (bad URL, missing placeholder value). */
  INVALID_REQUEST: 'INVALID_REQUEST',
  /** The MCP server could not be connected / initialized; tools/call was never sent. */
  MCP_CONNECT_FAILED: 'MCP_CONNECT_FAILED',
  /** The MCP server answered the request with a JSON-RPC error. */
  MCP_PROTOCOL_ERROR: 'MCP_PROTOCOL_ERROR',
  /** The MCP request timed out on the SDK's own per-request timer. */
  MCP_TIMEOUT: 'MCP_TIMEOUT',
  /** The MCP session was lost (404 / unknown session, closed transport) before the request was sent. */
  MCP_SESSION_LOST: 'MCP_SESSION_LOST',
  /** A Retry-After longer than TOOL_RETRY_MAX_AFTER_MS ended the call. */
  RETRY_AFTER_TOO_LONG: 'RETRY_AFTER_TOO_LONG',
  /** An in-process @Tool/@FeignTool method threw. */
  LOCAL_TOOL_ERROR: 'LOCAL_TOOL_ERROR',
  /** No in-process method is registered for the row (e.g. an ORPHANED Feign tool). */
  LOCAL_TOOL_NOT_FOUND: 'LOCAL_TOOL_NOT_FOUND',
  /** An in-process method returned something that cannot be serialized as JSON. */
  LOCAL_TOOL_BAD_RESULT: 'LOCAL_TOOL_BAD_RESULT',
  /** Anything else an executor threw (a bug or an unexpected failure): never retried. */
  EXECUTOR_ERROR: 'EXECUTOR_ERROR',
} as const;

export type ToolErrorClass = (typeof ToolErrorClass)[keyof typeof ToolErrorClass];
