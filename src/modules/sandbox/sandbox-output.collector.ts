import type { Readable } from 'node:stream';

/**
 * Reads one output stream of a sandboxed command, keeping at most `maxBytes`. Past the cap the stream is
 * destroyed, which closes the pipe as `| head -c N` would: the writer gets SIGPIPE (or EPIPE) instead of
 * the gateway reading, and discarding, an endless stream.
 */
export class SandboxOutputCollector {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private cut = false;

  constructor(
    stream: Readable,
    private readonly maxBytes: number,
  ) {
    stream.on('data', (chunk: Buffer) => {
      if (this.cut) return;
      const room = this.maxBytes - this.size;
      if (chunk.length > room) {
        this.chunks.push(chunk.subarray(0, room));
        this.size += room;
        this.cut = true;
        stream.destroy();
        return;
      }
      this.chunks.push(chunk);
      this.size += chunk.length;
    });
    // A destroyed pipe may report EPIPE/ECONNRESET; the command's own exit is what matters.
    stream.on('error', () => undefined);
  }

  get truncated(): boolean {
    return this.cut;
  }

  /** The kept bytes as UTF-8; when cut, a character split by the cap is dropped rather than mangled. */
  text(): string {
    const bytes = Buffer.concat(this.chunks, this.size);
    return (this.cut ? bytes.subarray(0, utf8SafeEnd(bytes)) : bytes).toString('utf8');
  }
}

/** Length of `bytes` without a trailing, incomplete UTF-8 sequence. */
export function utf8SafeEnd(bytes: Buffer): number {
  let start = bytes.length - 1;
  // Walk back over at most 3 continuation bytes (10xxxxxx) to the lead byte of the last character.
  while (start >= 0 && bytes.length - start <= 4 && (bytes[start] & 0xc0) === 0x80) start--;
  if (start < 0) return bytes.length;
  const lead = bytes[start];
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return bytes.length - start >= need ? bytes.length : start;
}
