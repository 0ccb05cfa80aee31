/**
 * Most bytes (UTF-8) of JSON one call's arguments may have: 8 MiB. Larger arguments are refused as a FAILED
 * result (nothing runs). Below it, a call works the same on SQLite and MySQL: the journal and the pending batch
 * keep the full arguments in LONGTEXT columns there, and a whole request stays under the 10 MB body limit
 * and MySQL's default `max_allowed_packet` (16 MB on MariaDB, 64 MB on MySQL 8).
 */
export const TOOL_ARGUMENTS_MAX_BYTES = 8 * 1024 * 1024;

/**
 * The problem with the size of `raw` arguments (an object, or the JSON string the model sent), or null when they
 * fit. A string is measured as sent; an object as its JSON text.
 */
export function argumentsSizeProblem(
  raw: unknown,
  parsed: unknown,
  maxBytes = TOOL_ARGUMENTS_MAX_BYTES,
): string | null {
  const text = typeof raw === 'string' ? raw : (JSON.stringify(parsed) ?? '');
  // UTF-8 takes at most 3 bytes per UTF-16 unit: short text needs no exact count.
  if (text.length * 3 <= maxBytes) return null;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= maxBytes) return null;
  return `arguments are ${bytes.toLocaleString('en-US')} bytes of JSON, over the limit of ${maxBytes.toLocaleString('en-US')} bytes; send large content in smaller parts`;
}
