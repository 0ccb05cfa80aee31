/** Keys whose values never reach a log, a review screen or an error message. */
const ALWAYS_REDACTED = /pass(word)?|secret|token|api[-_]?key|authorization|cookie|credential|private[-_]?key/i;
export const REDACTED = '***';

/**
 * A deep copy of `value` with sensitive fields masked: any key matching the built-in pattern or named in
 * `fields` (case-insensitive). Non-JSON values are kept as they are.
 */
export function redact<T>(value: T, fields: readonly string[] = []): T {
  const named = new Set(fields.map((f) => f.toLowerCase()));
  const walk = (v: unknown, depth: number): unknown => {
    if (depth > 64 || v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map((item) => walk(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, inner] of Object.entries(v)) {
      out[k] = ALWAYS_REDACTED.test(k) || named.has(k.toLowerCase()) ? REDACTED : walk(inner, depth + 1);
    }
    return out;
  };
  return walk(value, 0) as T;
}

/** Redacts JSON text when it parses as an object or array; other text is returned as is. */
export function redactJsonText(text: string, fields: readonly string[] = []): string {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return text;
  try {
    return JSON.stringify(redact(JSON.parse(text), fields));
  } catch {
    return text;
  }
}
