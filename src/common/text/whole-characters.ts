/**
 * Cutting JavaScript text (UTF-16 units) without cutting a character outside the BMP (an emoji, a rare CJK
 * character) in two: a lone half reaches a model as garbage, and either database stores it as U+FFFD.
 */

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Whether a cut at `at` would fall between the two halves of a surrogate pair. */
export function splitsPair(text: string, at: number): boolean {
  return at > 0 && at < text.length && isLowSurrogate(text.charCodeAt(at)) && isHighSurrogate(text.charCodeAt(at - 1));
}

/** `at`, or one before it when a cut there would split a surrogate pair. */
export function wholeCharBorder(text: string, at: number): number {
  return splitsPair(text, at) ? at - 1 : at;
}

/** The first `max` UTF-16 units of `text` or one fewer, never ending inside a surrogate pair. */
export function firstWholeChars(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, wholeCharBorder(text, max));
}

/**
 * Where a piece of at most `size` units that starts at `start` ends without splitting a pair: one unit earlier when
 * it would, but one later when that would leave the piece empty (a pair is never split, and cutting always moves on).
 */
export function wholeCharEnd(text: string, start: number, size: number): number {
  const end = Math.min(start + size, text.length);
  if (!splitsPair(text, end)) return end;
  return end - 1 > start ? end - 1 : end + 1;
}

/** `text` in pieces of at most `size` units (one more for a lone pair when `size` is 1), never inside a pair. */
export function wholeCharChunks(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let start = 0; start < text.length;) {
    const end = wholeCharEnd(text, start, size);
    chunks.push(text.slice(start, end));
    start = end;
  }
  return chunks;
}
