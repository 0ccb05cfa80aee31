import type Ajv from 'ajv';
import addFormats from 'ajv-formats';

/** Longest string `format: regex` accepts: compiling a 1 MB regex (`....`) took V8 2.2 s, 10,000 characters take milliseconds. */
const MAX_REGEX_FORMAT_CHARS = 10_000;

/**
 * ajv-formats' formats, with two replaced so no argument can hold the event loop:
 * - `url`: its regex backtracks super-linearly (40,000 characters of `http://::::...` took 2.5 s, a 1 MB argument
 *   would take hours). A URL is what the WHATWG parser accepts (linear) with an http, https or ftp scheme, as the
 *   old regex required.
 * - `regex`: checked as before (V8 compiles it, no `\Z`), but only up to {@link MAX_REGEX_FORMAT_CHARS}.
 */
export function addLinearFormats(ajv: Ajv): void {
  addFormats(ajv);
  ajv.addFormat('url', { type: 'string', validate: isUrl });
  ajv.addFormat('regex', { type: 'string', validate: isBoundedRegex });
}

const Z_ANCHOR = /[^\\]\\Z/;

function isBoundedRegex(value: string): boolean {
  if (value.length > MAX_REGEX_FORMAT_CHARS || Z_ANCHOR.test(value)) return false;
  try {
    new RegExp(value);
    return true;
  } catch {
    return false;
  }
}

const URL_SCHEME = /^(?:https?|ftp):\/\//i;

function isUrl(value: string): boolean {
  return URL_SCHEME.test(value) && URL.canParse(value);
}
