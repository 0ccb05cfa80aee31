import type { FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';

/** Bytes read at a time. */
const CHUNK_BYTES = 64 * 1024;

/** A file held fewer bytes than its reader announced: something cut it while it was read. */
export class FileCutShortError extends Error {
  constructor(
    readonly file: string,
    readonly size: number,
    readonly readBytes: number,
  ) {
    super(`"${file}" was cut to ${readBytes} of its ${size} bytes while it was being read`);
  }
}

/**
 * The first `size` bytes of an open file as a stream that ends exactly there, whatever the file becomes meanwhile:
 * bytes appended later are not read, and a file cut below `size` fails the stream with {@link FileCutShortError}
 * instead of ending it early, so a response that announced `size` bytes is aborted (the client sees an error), never
 * completed short. A file already shorter than `size` throws before this returns, as does one cut before its first
 * chunk is read: before any byte of the answer is sent. The stream closes the handle when it ends or fails; on a throw
 * the caller still owns it.
 */
export async function readExactly(handle: FileHandle, size: number, file: string): Promise<Readable> {
  const held = (await handle.stat()).size;
  if (held < size) throw new FileCutShortError(file, size, held);
  let position = 0;
  const readNext = async (): Promise<Buffer | null> => {
    if (position >= size) return null;
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size - position));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) throw new FileCutShortError(file, size, position);
    position += bytesRead;
    return buffer.subarray(0, bytesRead);
  };
  const first = await readNext();
  const stream = new Readable({
    highWaterMark: CHUNK_BYTES,
    read() {
      readNext().then(
        (chunk) => this.push(chunk),
        (err: Error) => this.destroy(err),
      );
    },
    destroy(err, callback) {
      handle.close().then(
        () => callback(err),
        () => callback(err),
      );
    },
  });
  stream.push(first);
  return stream;
}
