import { RESULT_CHUNK_CHARS } from '../journal/journal.types';

/**
 * Splits text into chunks of at most `size` UTF-16 units for storage (journal results, stored resume
 * responses), never between the two halves of a surrogate pair: a lone half is stored as U+FFFD on both
 * databases, so an emoji on a chunk boundary would come back broken. Joining the chunks gives `text` back.
 */
export function textChunks(text: string, size = RESULT_CHUNK_CHARS): string[] {
  if (text.length <= size) return text.length === 0 ? [] : [text];
  const chunks: string[] = [];
  for (let start = 0; start < text.length;) {
    let end = Math.min(start + size, text.length);
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
    chunks.push(text.slice(start, end));
    start = end;
  }
  return chunks;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
