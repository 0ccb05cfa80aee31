import { setOwnMember } from './own-member';

/**
 * JSON with object keys sorted at every depth and undefined members dropped, so equal values give equal
 * text whatever order their keys were written or read back in. Array order is kept (it is meaningful).
 * Fingerprints, definition checksums and list hashes are all computed over this.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : sortKeys(v)));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) setOwnMember(out, key, sortKeys(v));
  }
  return out;
}
