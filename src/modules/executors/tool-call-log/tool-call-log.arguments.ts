import { redactArguments, redactedPreview } from '@app/common/redaction';

/** Most characters of (redacted) arguments JSON a tool log row keeps; the journal keeps the full arguments. */
export const LOG_ARGUMENTS_MAX_CHARS = 4000;

/**
 * The `arguments_redacted` text of a tool log row for arguments as submitted (an object, or the model's text): their
 * redacted JSON, or, when longer than {@link LOG_ARGUMENTS_MAX_CHARS}, a marker with its redacted start. Bounded so a
 * row always fits MySQL's TEXT (64 KB) and a batch of rows one statement, whatever the arguments' size (up to 8 MiB);
 * long arguments are redacted only as far as the start kept (plus a margin), not whole.
 */
export function loggedArguments(raw: unknown, fields: readonly string[] = []): string {
  const json = typeof raw === 'string' ? raw : (JSON.stringify(raw) ?? 'null');
  if (json.length <= LOG_ARGUMENTS_MAX_CHARS) {
    const redacted = JSON.stringify(redactArguments(raw, fields)) ?? 'null';
    if (redacted.length <= LOG_ARGUMENTS_MAX_CHARS) return redacted;
  }
  return JSON.stringify({
    $truncated: `arguments of ${json.length} characters of JSON shortened for the log (the first ${LOG_ARGUMENTS_MAX_CHARS} are kept)`,
    preview: redactedPreview(json, fields, LOG_ARGUMENTS_MAX_CHARS),
  });
}
