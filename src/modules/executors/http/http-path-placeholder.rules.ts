/** Percent-escapes of ASCII bytes: the only ones that can decode to `.`, `/`, `\`, `;` or a control character. */
const ASCII_ESCAPE = /%([0-7][0-9A-Fa-f])/g;
/** A value still changing after this many rounds of decoding is refused rather than decoded further. */
const MAX_DECODE_ROUNDS = 8;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const TAB_OR_NEWLINE = /[\t\n\r]/g;

/**
 * Why `value` may not fill a `{param}` placeholder in the path of an HTTP tool's URL, or null when it may.
 * The value is decoded as often as it is percent-encoded (`%2e%2e`, `%2E.`, `%252e%252e`, ...), as some server
 * or proxy on the way may decode it, and must then still be exactly one path segment: not empty, not `.` or
 * `..` (also as `..;x`, which servlet containers read as `..`), without `/`, `\` (WHATWG URL reads it as `/`
 * in http(s) URLs) or control characters. Non-ASCII look-alikes (`．．`, `／`) are not refused: the URL parser
 * does not normalize them and the value is sent percent-encoded.
 */
export function pathPlaceholderProblem(value: string): string | null {
  if (value === '') return 'is empty, which would drop a path segment';
  const decoded = fullyDecoded(value);
  if (decoded === null) return `is percent-encoded more than ${MAX_DECODE_ROUNDS} times over`;
  if (decoded.includes('/') || decoded.includes('\\'))
    return 'holds "/" or "\\" (once decoded), which would change the path\'s segments';
  const segment = decoded.replace(TAB_OR_NEWLINE, '').split(';', 1)[0].trim();
  if (segment === '.' || segment === '..')
    return 'is "." or ".." (once decoded), which would move the request to another path';
  if (CONTROL.test(decoded)) return 'holds a control character (once decoded)';
  return null;
}

/** `value` with every ASCII percent-escape decoded, again and again until nothing changes; null past the limit. */
function fullyDecoded(value: string): string | null {
  let current = value;
  for (let round = 0; round < MAX_DECODE_ROUNDS; round++) {
    const next = current.replace(ASCII_ESCAPE, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === current) return current;
    current = next;
  }
  return null;
}

/**
 * Defence in depth after filling: the URL must keep the template's origin and number of path segments (a value
 * that slipped past {@link pathPlaceholderProblem} and was normalized by the URL parser shows here).
 * Returns what differs, or null.
 */
export function urlShapeProblem(template: URL, filled: URL): string | null {
  if (filled.origin !== template.origin) return `goes to ${filled.origin} instead of the endpoint's origin`;
  if (segmentCount(filled) !== segmentCount(template))
    return 'has a different number of path segments than the endpoint';
  return null;
}

function segmentCount(url: URL): number {
  let count = 0;
  for (let i = url.pathname.indexOf('/'); i >= 0; i = url.pathname.indexOf('/', i + 1)) count++;
  return count;
}
