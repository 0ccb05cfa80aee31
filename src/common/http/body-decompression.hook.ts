import type { FastifyInstance } from 'fastify';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/** The Content-Encodings a request body may have (what the Express body parser inflated before). */
const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** A Content-Encoding the API cannot read: 415 UNSUPPORTED_MEDIA_TYPE. */
class UnsupportedEncodingError extends Error {
  readonly statusCode = 415;
}

/** zlib's own errors (`Z_DATA_ERROR`, `Z_BUF_ERROR`, `ERR_BROTLI...`): the body is not what its encoding says. */
const isInflateError = (err: Error & { code?: unknown }): boolean =>
  typeof err.code === 'string' && /^(Z_|ERR_BROTLI|ERR__ERROR)/.test(err.code);

/**
 * Inflates a gzip, deflate or br request body before the body parser reads it (Fastify reads bodies as sent).
 * The body limit applies to the inflated bytes; Fastify compares the Content-Length with the bytes received
 * (`receivedEncodedLength`). A body that does not inflate is a 400 naming the encoding; another encoding is a 415.
 * The inflating stream is listened to at once: a raw upload reads it only after its session is found, and an inflate
 * error emitted before then, unhandled, ended the process.
 */
export function registerBodyDecompression(fastify: FastifyInstance): void {
  fastify.addHook('preParsing', (request, _reply, payload, done) => {
    const header = request.headers['content-encoding'];
    const encoding = header?.trim().toLowerCase();
    if (encoding === undefined || encoding === '' || encoding === 'identity') return done(null, payload);
    const decoder = DECODERS[encoding];
    if (!decoder)
      return done(
        new UnsupportedEncodingError(
          `unsupported content encoding "${encoding}" (gzip, deflate and br are read; or send the body without Content-Encoding)`,
        ),
      );
    const inflated = decoder() as Transform & { receivedEncodedLength: number };
    inflated.receivedEncodedLength = 0;
    inflated.on('error', (err: Error & { code?: unknown; statusCode?: number }) => {
      if (!isInflateError(err) || err.statusCode !== undefined) return;
      err.statusCode = 400;
      err.message = `the body does not inflate as ${encoding} (${err.message}): compress it as Content-Encoding says, or send it without Content-Encoding`;
    });
    payload.on('data', (chunk: Buffer) => (inflated.receivedEncodedLength += chunk.length));
    payload.on('error', (err) => inflated.destroy(err));
    payload.pipe(inflated);
    done(null, inflated);
  });
}
