import { randomFillSync } from 'node:crypto';

const POOL_IDS = 256;
const pool = Buffer.alloc(10 * POOL_IDS);
let next = POOL_IDS;
/** The millisecond of the last id, and how many ids were made in it before (RFC 9562's 12-bit counter). */
let lastMs = -1;
let sameMs = 0;
const MAX_COUNTER = 0xfff;

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, a 12-bit counter, then 62 random bits. Ids made later
 * sort later, so a table or index keyed by them grows at its end instead of rewriting pages all over (an append-heavy
 * log keyed by random UUIDs touched about five pages per row on SQLite); the first 4,096 ids a process makes for one
 * millisecond sort in the order they were made (the session event outbox writes rows of one instant in that order).
 * Random bits come from a pooled buffer.
 */
export function timeOrderedId(now: number = Date.now()): string {
  if (now !== lastMs) [lastMs, sameMs] = [now, 0];
  else if (sameMs < MAX_COUNTER) sameMs++;
  if (next === POOL_IDS) {
    randomFillSync(pool);
    next = 0;
  }
  const r = pool.subarray(next * 10, next * 10 + 10);
  next++;
  const time = now.toString(16).padStart(12, '0').slice(-12);
  const hex = r.toString('hex');
  const variant = ((r[2] & 0x3f) | 0x80).toString(16);
  const counter = sameMs.toString(16).padStart(3, '0');
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${counter}-${variant}${hex.slice(6, 8)}-${hex.slice(8, 20)}`;
}
