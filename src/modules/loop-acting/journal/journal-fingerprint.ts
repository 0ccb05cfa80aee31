import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every depth, so equal arguments always serialize the same way. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
  return out;
}

/** What identifies "the same call": the tool name and the canonical arguments. */
export function callFingerprint(toolName: string, args: unknown): string {
  return createHash('sha256').update(toolName).update('\n').update(canonicalJson(args)).digest('hex');
}
