import { hash } from 'node:crypto';
import { TOOL_CONTEXT_HEADERS } from '@app/modules/tool-registry/tool-context.headers';
import type { ToolInvocation } from '../tool-executor';

/** Who a remote tool call is made for: what HTTP headers and MCP `_meta` tell the remote. */
export interface RemoteCallContext {
  tenantId: string | null;
  userId: string | null;
  /** Null for executeDirect (no session). */
  sessionId: string | null;
  toolCallId: string;
}

/** The context of one attempt, as the executor received it. */
export function remoteCallContextOf(
  invocation: Pick<ToolInvocation, 'tenantId' | 'userId' | 'sessionId' | 'toolCallId'>,
): RemoteCallContext {
  return {
    tenantId: invocation.tenantId,
    userId: invocation.userId,
    sessionId: invocation.sessionId ?? null,
    toolCallId: invocation.toolCallId,
  };
}

/** The MCP `tools/call` `params._meta` of a call: the context, null where there is none. */
export interface RemoteCallMeta {
  [key: string]: unknown;
  tenantId: string | null;
  userId: string | null;
  sessionId: string | null;
  toolCallId: string;
  idempotencyKey: string;
}

const KEY_PREFIX = 'gw1-';
/** Printable ASCII except `%` (the escape character itself): sent as is. */
const HEADER_SAFE = /^[\x21-\x24\x26-\x7e]*$/;
const HEADER_UNSAFE_CHAR = /[^\x21-\x24\x26-\x7e]/gu;
/** A lone surrogate (no character of its own; encodeURIComponent throws on it) becomes U+FFFD, as UTF-8 does. */
const REPLACEMENT_CHAR = '%EF%BF%BD';

/**
 * The `Idempotency-Key` of a call: a hash of (tenant, session, toolCallId), the journal's own key, so it is the
 * same on every attempt and every re-run of one journaled call (lease recovery, UNKNOWN_OUTCOME RETRY) and
 * differs between tenants and sessions that reuse a toolCallId (`call_1`). `gw1-` + 43 base64url characters.
 */
export function idempotencyKeyOf(ctx: RemoteCallContext): string {
  return `${KEY_PREFIX}${hash('sha256', JSON.stringify([ctx.tenantId, ctx.sessionId, ctx.toolCallId]), 'base64url')}`;
}

/**
 * Sets the context headers on `headers` (lower-case names), after removing any of them a tool defined: `X-Tenant-Id`,
 * `X-User-Id`, `X-Session-Id` (each only when there is one), `X-Tool-Call-Id` and `Idempotency-Key`. Values are
 * {@link headerSafe}.
 */
export function applyRemoteContextHeaders(headers: Record<string, string>, ctx: RemoteCallContext): void {
  for (const name of TOOL_CONTEXT_HEADERS) delete headers[name];
  if (ctx.tenantId !== null) headers['x-tenant-id'] = headerSafe(ctx.tenantId);
  if (ctx.userId !== null) headers['x-user-id'] = headerSafe(ctx.userId);
  if (ctx.sessionId !== null) headers['x-session-id'] = headerSafe(ctx.sessionId);
  headers['x-tool-call-id'] = headerSafe(ctx.toolCallId);
  headers['idempotency-key'] = idempotencyKeyOf(ctx);
}

/** The `_meta` of an MCP `tools/call` (JSON: values as they are). */
export function remoteCallMeta(ctx: RemoteCallContext): RemoteCallMeta {
  return {
    tenantId: ctx.tenantId,
    userId: ctx.userId,
    sessionId: ctx.sessionId,
    toolCallId: ctx.toolCallId,
    idempotencyKey: idempotencyKeyOf(ctx),
  };
}

/**
 * A header value that carries `value` exactly: printable ASCII other than `%` as is, every other character (CR, LF,
 * space, non-ASCII, `%`) percent-encoded as UTF-8, so `decodeURIComponent` on the remote gives the value back
 * and no value can end a header or start another.
 */
export function headerSafe(value: string): string {
  if (HEADER_SAFE.test(value)) return value;
  return value.replace(HEADER_UNSAFE_CHAR, (c) => (isLoneSurrogate(c) ? REPLACEMENT_CHAR : encodeURIComponent(c)));
}

function isLoneSurrogate(c: string): boolean {
  return c.length === 1 && c >= '\uD800' && c <= '\uDFFF';
}
