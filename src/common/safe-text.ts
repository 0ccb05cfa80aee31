import { ValidateBy, type ValidationOptions } from 'class-validator';

/**
 * Half of a character: a UTF-16 surrogate with no other half (the patterns below are read with the `u` flag, where a
 * whole pair is one character outside this range). UTF-8 cannot hold it: SQLite read it back as U+FFFD three times
 * and MySQL stored one U+FFFD, so two names differing only there were one name on MySQL and two shown alike on SQLite.
 */
const HALF_CHARACTERS = '\\ud800-\\udfff';
/**
 * Refused in names and ids (one line): C0 and C1 controls and DEL, zero-width and direction marks
 * (U+200B-U+200F), line and paragraph separators, bidi embeddings and overrides (U+202A-U+202E), bidi
 * isolates (U+2066-U+2069) and the BOM. They hide or reorder what an admin or a reviewer reads. And half characters.
 */
const UNSAFE_IN_LINE = `\\u0000-\\u001f\\u007f-\\u009f\\u200b-\\u200f\\u2028-\\u202e\\u2066-\\u2069\\ufeff${HALF_CHARACTERS}`;
/** Refused in free text (descriptions): the same controls except tab, line feed and carriage return, and the bidi embeddings, overrides and isolates, and half characters. */
const UNSAFE_IN_TEXT = `\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069${HALF_CHARACTERS}`;

/**
 * For JSON Schemas (ajv bodies, whose patterns have the `u` flag): a string with none of the characters refused in
 * names and ids. Build a RegExp of it with {@link safeLineRegExp} (the `u` flag is what lets whole pairs through).
 */
export const SAFE_LINE_PATTERN = `^[^${UNSAFE_IN_LINE}]*$`;
export const safeLineRegExp = (): RegExp => new RegExp(SAFE_LINE_PATTERN, 'u');
const SAFE_LINE = safeLineRegExp();
const SAFE_TEXT = new RegExp(`^[^${UNSAFE_IN_TEXT}]*$`, 'u');
const UNSAFE_TEXT_CHARS = new RegExp(`[${UNSAFE_IN_TEXT}]`, 'gu');

/** The problem reported for a name or id holding a refused character (after the field name). */
export const UNSAFE_LINE_PROBLEM =
  'must not contain control characters (U+0000-U+001F, U+007F-U+009F), zero-width or direction marks (U+200B-U+200F), line separators or bidi embeddings, overrides and isolates (U+2028-U+202E, U+2066-U+2069), or half of a character (a lone UTF-16 surrogate, \\ud800-\\udfff, e.g. an emoji cut in two); remove them';
/** The problem reported for free text holding a refused character (after the field name). */
export const UNSAFE_TEXT_PROBLEM =
  'must not contain control characters other than tab and line breaks (U+0000-U+001F, U+007F-U+009F), bidi embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069), or half of a character (a lone UTF-16 surrogate, \\ud800-\\udfff, e.g. an emoji cut in two); remove them';

/** class-validator: a name or id (one line) without control, zero-width or bidi characters. */
export function IsSafeLine(options: ValidationOptions = {}): PropertyDecorator {
  return ValidateBy(
    { name: 'isSafeLine', validator: { validate: (v) => typeof v !== 'string' || SAFE_LINE.test(v) } },
    { message: `$property ${UNSAFE_LINE_PROBLEM}`, ...options },
  );
}

/** class-validator: free text (tab and line breaks allowed) without other controls or bidi overrides. */
export function IsSafeText(options: ValidationOptions = {}): PropertyDecorator {
  return ValidateBy(
    { name: 'isSafeText', validator: { validate: (v) => typeof v !== 'string' || SAFE_TEXT.test(v) } },
    { message: `$property ${UNSAFE_TEXT_PROBLEM}`, ...options },
  );
}

/** Text from outside (an MCP server's tool description) with the characters {@link IsSafeText} refuses removed. */
export function stripUnsafeText(text: string): string {
  return text.replace(UNSAFE_TEXT_CHARS, '');
}

/**
 * class-validator: a name without white space at either end (nor only white space). MySQL's collations pad with
 * spaces, so "bot " and "bot" are one name there and two on SQLite; and an admin reading a list cannot tell them apart.
 */
export function IsTrimmed(options: ValidationOptions = {}): PropertyDecorator {
  return ValidateBy(
    { name: 'isTrimmed', validator: { validate: (v) => typeof v !== 'string' || v === '' || v.trim() === v } },
    { message: '$property must not start or end with white space (nor be only white space); remove it', ...options },
  );
}
