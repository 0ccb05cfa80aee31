import { createHash } from 'node:crypto';

/** Longest tool name every major model accepts. */
export const MAX_TOOL_NAME_LENGTH = 64;
const INVALID_CHARS = /[^a-zA-Z0-9_-]/g;
const HASH_CHARS = 8;
const MAX_DEFAULT_PREFIX = 31;

/** The prefix a service gets when the admin names none: its name with `.` as `_`, then `_` (at most 32 chars). */
export function defaultToolPrefix(serviceName: string): string {
  return `${serviceName.replace(INVALID_CHARS, '_').slice(0, MAX_DEFAULT_PREFIX)}_`;
}

/**
 * The registry name of an MCP tool: `prefix + remoteName` when that is already a valid name
 * (`^[a-zA-Z0-9_-]{1,64}$`). Otherwise invalid characters become `_`, the result is cut to leave room, and
 * `_` plus 8 hex characters of sha256(remoteName) are appended: the same remote name always gives the same
 * name, and two remote names that sanitize or truncate alike still get different ones.
 */
export function mcpToolName(prefix: string, remoteName: string): string {
  const sanitized = remoteName.replace(INVALID_CHARS, '_');
  const candidate = `${prefix}${sanitized}`;
  if (sanitized === remoteName && remoteName.length > 0 && candidate.length <= MAX_TOOL_NAME_LENGTH) return candidate;
  const hash = createHash('sha256').update(remoteName).digest('hex').slice(0, HASH_CHARS);
  return `${candidate.slice(0, MAX_TOOL_NAME_LENGTH - HASH_CHARS - 1)}_${hash}`;
}
