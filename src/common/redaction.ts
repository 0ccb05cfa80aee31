import { REDACTED, sensitiveKeyTest } from './redaction-keys';
import { setOwnMember } from './own-member';
import { redactText } from './redaction-free-text';
import { redactTextOf } from './redaction-json-preview';

export { REDACTED, sensitiveKeyTest } from './redaction-keys';
export { redactText } from './redaction-free-text';
export { redactedPreview } from './redaction-json-preview';

/** Levels of nesting shown; anything deeper is replaced by {@link TOO_DEEP} (never shown unredacted). */
export const MAX_REDACTION_DEPTH = 64;
export const TOO_DEEP = `${REDACTED} (nested deeper than ${MAX_REDACTION_DEPTH} levels)`;

/**
 * A deep copy of `value` fit to store or show: the value of any key matching the built-in sensitive keys or
 * named in `fields` (the tool's `result.redactFields`; both case- and separator-insensitive) is masked,
 * secrets inside strings are masked ({@link redactText}), and subtrees deeper than 64 levels are replaced
 * by a marker.
 */
export function redact<T>(value: T, fields: readonly string[] = []): T {
  const sensitive = sensitiveKeyTest(fields);
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return redactText(v);
    if (v === null || typeof v !== 'object') return v;
    if (depth >= MAX_REDACTION_DEPTH) return TOO_DEEP;
    if (Array.isArray(v)) return v.map((item) => walk(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, inner] of Object.entries(v)) setOwnMember(out, k, sensitive(k) ? REDACTED : walk(inner, depth + 1));
    return out;
  };
  return walk(value, 0) as T;
}

/**
 * Tool-call arguments as submitted (an object, or the model's text) made fit to store or show: text that
 * parses as JSON is redacted as JSON; other text (not JSON, or cut JSON) is scanned like a result preview.
 */
export function redactArguments(raw: unknown, fields: readonly string[] = []): unknown {
  if (typeof raw !== 'string') return redact(raw, fields);
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed !== null && typeof parsed === 'object') return redact(parsed, fields);
  } catch {
    /* not JSON, or cut: scanned as text */
  }
  return redactTextOf(raw, fields);
}

/** A snippet of the arguments quoted in a message (a risk rule's match) and where in them it was found (`steps[1].sql`). */
export interface QuotedSnippet {
  match: string;
  path?: string;
}

/**
 * A message that quotes argument snippets (a risk reason, an approval prompt) fit to store or show: snippets
 * found under a sensitive key or one of `fields` are masked, then secrets in free text.
 */
export function redactQuotingText(
  text: string,
  snippets: readonly QuotedSnippet[],
  fields: readonly string[] = [],
): string {
  let out = text;
  for (const s of hiddenSnippets(snippets, fields)) out = out.split(s).join(REDACTED);
  return redactText(out);
}

/** The snippets with those found under a sensitive key or one of `fields` masked. */
export function redactSnippets<S extends QuotedSnippet>(snippets: readonly S[], fields: readonly string[] = []): S[] {
  const hidden = new Set(hiddenSnippets(snippets, fields));
  return snippets.map((s) => ({ ...s, match: hidden.has(s.match) ? REDACTED : redactText(s.match) }));
}

function hiddenSnippets(snippets: readonly QuotedSnippet[], fields: readonly string[]): string[] {
  const sensitive = sensitiveKeyTest(fields);
  return snippets
    .filter(
      (s) =>
        s.match && (s.path ?? '').split(/[.[\]]+/).some((key) => key !== '' && !/^\d+$/.test(key) && sensitive(key)),
    )
    .map((s) => s.match);
}
