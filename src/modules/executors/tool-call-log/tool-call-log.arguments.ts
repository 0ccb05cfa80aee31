/** Most characters of (redacted) arguments JSON a tool log row keeps; the journal keeps the full arguments. */
export const LOG_ARGUMENTS_MAX_CHARS = 4000;

/**
 * The `arguments_redacted` text of a tool log row: the redacted arguments' JSON, or, when longer than
 * {@link LOG_ARGUMENTS_MAX_CHARS}, a marker with its start. Bounded so a row always fits MySQL's TEXT (64 KB)
 * and a batch of rows one statement, whatever the arguments' size (up to 8 MiB).
 */
export function loggedArguments(redacted: unknown): string {
  const json = JSON.stringify(redacted) ?? 'null';
  if (json.length <= LOG_ARGUMENTS_MAX_CHARS) return json;
  return JSON.stringify({
    $truncated: `arguments of ${json.length} characters of JSON shortened for the log (the first ${LOG_ARGUMENTS_MAX_CHARS} are kept)`,
    preview: json.slice(0, LOG_ARGUMENTS_MAX_CHARS),
  });
}
