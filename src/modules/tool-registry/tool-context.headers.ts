/**
 * Headers the gateway sets on every HTTP tool call to tell the remote who calls (see the executors'
 * remote-call context). A tool's own `headers` may not name them: registration refuses it, and a call overwrites
 * or removes them, so a tenant's tool can never claim another tenant, user or session. Lower case.
 */
export const TOOL_CONTEXT_HEADERS: readonly string[] = [
  'x-tenant-id',
  'x-user-id',
  'x-session-id',
  'x-tool-call-id',
  'idempotency-key',
];

/** Whether `name` (any case) is one of {@link TOOL_CONTEXT_HEADERS}. */
export function isToolContextHeader(name: string): boolean {
  return TOOL_CONTEXT_HEADERS.includes(name.toLowerCase());
}

/**
 * Headers that frame or route the request, which the HTTP client derives from the endpoint and the body: a tool may
 * not set them. `Host` would send the call to another virtual host behind the vetted address (a name the outbound
 * guard never saw); the others would break the message framing or the connection. Lower case.
 */
export const TRANSPORT_HEADERS: readonly string[] = [
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'upgrade',
  'expect',
  'te',
  'trailer',
];

/** Whether `name` (any case) is one of {@link TRANSPORT_HEADERS}. */
export function isTransportHeader(name: string): boolean {
  return TRANSPORT_HEADERS.includes(name.toLowerCase());
}
