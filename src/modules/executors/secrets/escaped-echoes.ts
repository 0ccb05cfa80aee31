/**
 * Finding a secret a remote echoed with some of its characters escaped, in time linear in the text.
 *
 * Encoders escape by one family of rules: JSON (`\uXXXX` in either case, `\/` as PHP writes it, `\"`, `\\`; .NET
 * escapes `+` and `&`, Go `&`, `<` and `>`) or percent-encoding (UTF-8 bytes, either case; `+` for a space in form
 * encoding). So the text is decoded once per family into a view that remembers where each of its characters came
 * from, the secret is looked for in that view as plain text, and what it matched is masked in the original text.
 * A pattern with an alternative per character would also match mixes no encoder writes, at a price: V8's
 * backtracking took seconds on a secret of many backslashes (both `\` and `\\` match at a run of them), and RE2
 * grows with the secret's length times the text's.
 */

/**
 * A text with one family of escapes decoded, and where its characters came from: each escape decoded to `length`
 * characters at `at` of the view began at `from` of the text and took `width` characters there (kept only for
 * escapes, in order: the characters between them map one to one).
 */
interface DecodedView {
  text: string;
  escapes: Array<{ at: number; length: number; from: number; width: number }>;
}

/** Where in the text the view's character `index` began (or, for `index` = the view's length, where the text ends). */
function textIndex(view: DecodedView, index: number): number {
  let low = 0;
  let high = view.escapes.length - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (view.escapes[mid].at <= index) {
      found = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  if (found === -1) return index;
  const e = view.escapes[found];
  return index < e.at + e.length ? e.from : e.from + e.width + (index - e.at - e.length);
}

/** The spans `[start, end)` of `text` that, decoded by one family of escapes, read as one of `values`. */
export function escapedEchoSpans(text: string, values: readonly string[]): Array<[number, number]> {
  const views: DecodedView[] = [];
  if (text.includes('\\')) views.push(jsonUnescaped(text));
  if (text.includes('%') || text.includes('+')) {
    views.push(percentDecoded(text, false));
    if (values.some((v) => v.includes(' '))) views.push(percentDecoded(text, true));
  }
  const spans: Array<[number, number]> = [];
  for (const view of views) {
    if (view.escapes.length === 0) continue;
    for (const value of values) {
      if (value === '') continue;
      for (let at = view.text.indexOf(value); at !== -1; at = view.text.indexOf(value, at + value.length))
        spans.push([textIndex(view, at), textIndex(view, at + value.length)]);
    }
  }
  return merged(spans);
}

/** `text` with each span replaced by `replacement` (spans sorted and apart, as {@link escapedEchoSpans} gives them). */
export function withSpansReplaced(text: string, spans: ReadonlyArray<[number, number]>, replacement: string): string {
  let out = '';
  let from = 0;
  for (const [start, end] of spans) {
    out += text.slice(from, start) + replacement;
    from = end;
  }
  return out + text.slice(from);
}

function merged(spans: Array<[number, number]>): Array<[number, number]> {
  spans.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: Array<[number, number]> = [];
  for (const span of spans) {
    const last = out[out.length - 1];
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else out.push([span[0], span[1]]);
  }
  return out;
}

const JSON_SHORT_ESCAPES: Record<string, string> = { '/': '/', '"': '"', '\\': '\\' };

/** The view of `text` with each escape that `decodeAt` reads decoded (it answers null where none begins). */
function decodedView(
  text: string,
  candidates: RegExp,
  decodeAt: (i: number) => { chars: string; end: number } | null,
): DecodedView {
  const pieces: string[] = [];
  const escapes: DecodedView['escapes'] = [];
  let copiedTo = 0;
  let at = 0;
  candidates.lastIndex = 0;
  for (let m = candidates.exec(text); m; m = candidates.exec(text)) {
    const decoded = decodeAt(m.index);
    if (!decoded) continue;
    pieces.push(text.slice(copiedTo, m.index), decoded.chars);
    at += m.index - copiedTo;
    escapes.push({ at, length: decoded.chars.length, from: m.index, width: decoded.end - m.index });
    at += decoded.chars.length;
    copiedTo = decoded.end;
    candidates.lastIndex = decoded.end;
  }
  pieces.push(text.slice(copiedTo));
  return { text: pieces.join(''), escapes };
}

/** JSON's escapes decoded: `\uXXXX`, `\/`, `\"`, `\\`; any other character as it is. */
function jsonUnescaped(text: string): DecodedView {
  return decodedView(text, /\\/g, (i) => {
    const short = JSON_SHORT_ESCAPES[text[i + 1]];
    if (short !== undefined) return { chars: short, end: i + 2 };
    const hex = text.slice(i + 2, i + 6);
    return text[i + 1] === 'u' && /^[0-9a-fA-F]{4}$/.test(hex)
      ? { chars: String.fromCharCode(parseInt(hex, 16)), end: i + 6 }
      : null;
  });
}

/** Percent-encoded UTF-8 decoded (either case), and `+` as a space when `plusIsSpace`; anything else as it is. */
function percentDecoded(text: string, plusIsSpace: boolean): DecodedView {
  return decodedView(text, plusIsSpace ? /[%+]/g : /%/g, (i) =>
    text[i] === '+' ? { chars: ' ', end: i + 1 } : percentSequenceAt(text, i),
  );
}

/** One UTF-8 character written as `%XX` bytes at `i`, or null when the bytes there are not one. */
function percentSequenceAt(text: string, i: number): { chars: string; end: number } | null {
  const byteAt = (at: number): number | null => {
    const hex = text.slice(at + 1, at + 3);
    return text[at] === '%' && /^[0-9a-fA-F]{2}$/.test(hex) ? parseInt(hex, 16) : null;
  };
  const lead = byteAt(i);
  if (lead === null) return null;
  const length =
    lead < 0x80
      ? 1
      : lead >= 0xc2 && lead < 0xe0
        ? 2
        : lead >= 0xe0 && lead < 0xf0
          ? 3
          : lead >= 0xf0 && lead < 0xf5
            ? 4
            : 0;
  if (length === 0) return null;
  const bytes = [lead];
  for (let k = 1; k < length; k++) {
    const next = byteAt(i + 3 * k);
    if (next === null || (next & 0xc0) !== 0x80) return null;
    bytes.push(next);
  }
  const chars = Buffer.from(bytes).toString('utf8');
  // An overlong or surrogate encoding decodes to U+FFFD: not a character of any secret.
  return chars.includes('\ufffd') ? null : { chars, end: i + 3 * length };
}
