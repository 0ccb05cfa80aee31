import type { FileHandle } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { pageBounds } from '@app/modules/loop-acting/results/tool-result.view';

/** Bytes read at a time: what a page read holds of the file, whatever its size. */
const READ_BYTES = 64 * 1024;

/** A page of a UTF-8 text file: characters `[offset, offset + content.length)` of `totalChars`. */
export interface FileTextPage {
  offset: number;
  totalChars: number;
  hasMore: boolean;
  content: string;
}

/**
 * At most `limit` characters (UTF-16 units) from `offset` of the open file, cut as {@link pageBounds} cuts a text
 * (never half a surrogate pair), read through once in small pieces: only the page and the characters beside it are
 * kept, so a file of any size (a command may write up to SANDBOX_MAX_FILE_MB) is paged without loading it whole.
 */
export async function readFileTextPage(handle: FileHandle, offset: number, limit: number): Promise<FileTextPage> {
  // One character before the page and one after it: pageBounds looks at both to keep a surrogate pair whole.
  const from = Math.max(0, offset - 1);
  const to = offset + limit + 1;
  const decoder = new StringDecoder('utf8');
  const buffer = Buffer.allocUnsafe(READ_BYTES);
  let seen = 0;
  let window = '';
  const keep = (text: string) => {
    if (seen + text.length > from && seen < to) window += text.slice(Math.max(0, from - seen), to - seen);
    seen += text.length;
  };
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, READ_BYTES, null);
    if (bytesRead === 0) break;
    keep(decoder.write(buffer.subarray(0, bytesRead)));
  }
  keep(decoder.end());
  const { start, end } = pageBounds(window, offset - from, limit);
  return {
    offset: from + start,
    totalChars: seen,
    hasMore: from + end < seen,
    content: window.slice(start, end),
  };
}
