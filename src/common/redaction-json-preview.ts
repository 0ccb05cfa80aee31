import { REDACTED, sensitiveKeyTest } from './redaction-keys';
import { redactText } from './redaction-free-text';

/** Text read past the preview before the free-text pass, so a secret that crosses the cut is still seen whole. */
const MARGIN_CHARS = 2000;

/**
 * The first `maxChars` characters of a result, redacted BEFORE it is cut: a JSON text (object or array) is
 * scanned token by token, without parsing the whole of it, and the value of every sensitive key (a whole
 * subtree, at any depth) becomes `"***"`; then secrets in free text are masked and the text is cut. Works on
 * JSON that is invalid or was itself cut, costs O(maxChars) plus the sensitive subtrees it skips, and never
 * recurses.
 */
export function redactedPreview(text: string, fields: readonly string[], maxChars: number): string {
  return redactTextOf(text, fields, maxChars + MARGIN_CHARS).slice(0, maxChars);
}

/** The first `window` characters of `text` (about: masked values change lengths), redacted as JSON when it looks like JSON, then as free text. */
export function redactTextOf(text: string, fields: readonly string[], window = text.length): string {
  const first = text[firstNonSpace(text)];
  const head =
    first === '{' || first === '['
      ? maskSensitiveJsonValues(text, sensitiveKeyTest(fields), window)
      : text.slice(0, window);
  return redactText(head);
}

/** Copies JSON text until `limit` characters are out, with the values of sensitive keys replaced. */
function maskSensitiveJsonValues(text: string, sensitive: (key: string) => boolean, limit: number): string {
  const out: string[] = [];
  let outChars = 0;
  const emit = (piece: string) => {
    out.push(piece);
    outChars += piece.length;
  };
  /** true: inside an object; false: inside an array. */
  const containers: boolean[] = [];
  let expectKey = false;
  let maskNext = false;
  let i = 0;
  while (i < text.length && outChars < limit) {
    const c = text[i];
    if (maskNext && !isSpace(c)) {
      i = skipValue(text, i);
      emit(`"${REDACTED}"`);
      maskNext = false;
      continue;
    }
    if (c === '"') {
      // A string is copied at most up to the budget: a huge value is never sliced whole.
      const end = stringEnd(text, i, i + 2 + limit - outChars);
      const token = text.slice(i, end);
      if (expectKey && containers[containers.length - 1]) {
        maskNext = sensitive(decodeKey(token));
        expectKey = false;
        emit(token);
        i = end;
        i = copyUntilColon(text, i, emit);
        continue;
      }
      emit(escapedSecretsMasked(token));
      i = end;
      continue;
    }
    if (c === '{' || c === '[') {
      containers.push(c === '{');
      expectKey = c === '{';
    } else if (c === '}' || c === ']') {
      containers.pop();
      expectKey = false;
    } else if (c === ',') {
      expectKey = containers[containers.length - 1] === true;
    }
    emit(c);
    i++;
  }
  return out.join('');
}

/**
 * A string value of the JSON with the secrets of the text it stands for masked. The pass over the whole JSON text
 * reads escapes as written: after a line break, written `\n`, a token has no word boundary before it, nor an option a
 * space (`"keys:\nsk-..."`, `"run:\nmysql -pS3cret"`, `"--password\thunter2"`), and the patterns missed them
 * (redacting the parsed arguments, as the tool log did before it kept only their start, read them decoded). A value
 * cut at the window's end is read as far as it goes; one that does not decode is left to the pass over the whole.
 */
function escapedSecretsMasked(token: string): string {
  if (!token.includes('\\')) return token;
  const closed = isClosedString(token);
  // A value cut inside an escape (`\`, `\u00`) decodes once the escape's start is dropped too.
  for (let cut = 0; cut <= (closed ? 0 : MAX_ESCAPE_CHARS); cut++) {
    let decoded: unknown;
    try {
      decoded = JSON.parse(closed ? token : `${token.slice(0, token.length - cut)}"`);
    } catch {
      continue;
    }
    const masked = redactText(decoded as string);
    if (masked === decoded) return token;
    const encoded = JSON.stringify(masked);
    return closed ? encoded : encoded.slice(0, -1);
  }
  return token;
}

/** The longest JSON escape (`\u00e9`). */
const MAX_ESCAPE_CHARS = 6;

/** Whether a string token ends with its closing quote (one not escaped: an even run of backslashes before it). */
function isClosedString(token: string): boolean {
  if (token.length < 2 || !token.endsWith('"')) return false;
  let backslashes = 0;
  for (let i = token.length - 2; i > 0 && token[i] === '\\'; i--) backslashes++;
  return backslashes % 2 === 0;
}

/** After a key: copies whitespace and the colon (the value follows). */
function copyUntilColon(text: string, from: number, emit: (s: string) => void): number {
  let i = from;
  while (i < text.length && isSpace(text[i])) i++;
  if (text[i] === ':') i++;
  emit(text.slice(from, i));
  return i;
}

/** The index after the value starting at `from`: a string, a balanced object or array, or a bare literal. */
function skipValue(text: string, from: number): number {
  const c = text[from];
  if (c === '"') return stringEnd(text, from);
  if (c !== '{' && c !== '[') {
    let i = from;
    while (i < text.length && !',}] \t\r\n'.includes(text[i])) i++;
    return i;
  }
  let depth = 0;
  let i = from;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') {
      i = stringEnd(text, i);
      continue;
    }
    if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') depth--;
    i++;
    if (depth === 0) return i;
  }
  return i;
}

/** The index after the closing quote of the string starting at `from` (the end of the text, or `stop`, when not reached). */
function stringEnd(text: string, from: number, stop = text.length): number {
  let i = from + 1;
  const last = Math.min(stop, text.length);
  while (i < last) {
    const ch = text[i];
    if (ch === '\\') i += 2;
    else if (ch === '"') return i + 1;
    else i++;
  }
  return Math.min(i, last);
}

function decodeKey(token: string): string {
  if (!token.includes('\\')) return token.slice(1, -1);
  try {
    return String(JSON.parse(token));
  } catch {
    return token.slice(1);
  }
}

function firstNonSpace(text: string): number {
  let i = 0;
  while (i < text.length && isSpace(text[i])) i++;
  return i;
}

function isSpace(c: string): boolean {
  return c === ' ' || c === '\n' || c === '\r' || c === '\t';
}
