import { createHash } from 'node:crypto';
import { nameKeyOf } from '@app/common/name-key';
import { TOOL_NAME_PATTERN } from '@app/modules/tool-registry/tool-registry.types';

/** Longest tool name every major model accepts. */
const MAX_TOOL_NAME_LENGTH = 64;
const INVALID_CHARS = /[^a-zA-Z0-9_-]/g;
const HASH_CHARS = 8;
const MAX_DEFAULT_PREFIX = 31;

/** The prefix a service gets when the admin names none: its name with `.` as `_`, then `_` (at most 32 chars). */
export function defaultToolPrefix(serviceName: string): string {
  return `${serviceName.replace(INVALID_CHARS, '_').slice(0, MAX_DEFAULT_PREFIX)}_`;
}

/**
 * The registry name of an MCP tool: `prefix + remoteName` when that is already a valid name
 * (`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`). Otherwise the {@link suffixedMcpToolName}: the same remote name always
 * gives the same name, and two remote names that sanitize or truncate alike still get different ones.
 */
export function mcpToolName(prefix: string, remoteName: string): string {
  const candidate = `${prefix}${remoteName}`;
  return TOOL_NAME_PATTERN.test(candidate) ? candidate : suffixedMcpToolName(prefix, remoteName, 0);
}

/**
 * `prefix + remoteName` made valid (invalid characters as `_`, a `_` in front when it would start with a
 * digit or `-`), cut to leave room, then `_` and 8 hex characters of sha256(remoteName) (of
 * `remoteName#attempt` for a later attempt, when that name is taken too).
 */
function suffixedMcpToolName(prefix: string, remoteName: string, attempt: number): string {
  const sanitized = `${prefix}${remoteName}`.replace(INVALID_CHARS, '_');
  const candidate = /^[a-zA-Z_]/.test(sanitized) ? sanitized : `_${sanitized}`;
  const hash = createHash('sha256')
    .update(attempt === 0 ? remoteName : `${remoteName}#${attempt}`)
    .digest('hex')
    .slice(0, HASH_CHARS);
  return `${candidate.slice(0, MAX_TOOL_NAME_LENGTH - HASH_CHARS - 1)}_${hash}`;
}

/**
 * Distinct names for the remote tools that have no row yet, none equal case-insensitively to a key in
 * `taken` (the service's own rows) or to another's: in code-unit order of the remote names (so the result
 * never depends on the listing's order), each takes {@link mcpToolName}, or, when that is taken (`Search`
 * before `search`), its {@link suffixedMcpToolName}.
 */
export function allocateMcpToolNames(
  prefix: string,
  remoteNames: Iterable<string>,
  taken: Iterable<string>,
): Map<string, string> {
  const keys = new Set(taken);
  const names = new Map<string, string>();
  for (const remoteName of [...new Set(remoteNames)].sort()) {
    let name = mcpToolName(prefix, remoteName);
    for (let attempt = 0; keys.has(nameKeyOf(name)); attempt++) name = suffixedMcpToolName(prefix, remoteName, attempt);
    keys.add(nameKeyOf(name));
    names.set(remoteName, name);
  }
  return names;
}
