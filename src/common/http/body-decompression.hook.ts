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

/**
 * Inflates a gzip, deflate or br request body before the body parser reads it (Fastify reads bodies as sent).
 * The body limit applies to the inflated bytes; Fastify compares the Content-Length with the bytes received
 * (`receivedEncodedLength`). A body that does not inflate is a 400; another encoding is a 415.
 */
export function registerBodyDecompression(fastify: FastifyInstance): void {
  fastify.addHook('preParsing', (request, _reply, payload, done) => {
    const header = request.headers['content-encoding'];
    const encoding = header?.trim().toLowerCase();
    if (encoding === undefined || encoding === '' || encoding === 'identity') return done(null, payload);
    const decoder = DECODERS[encoding];
    if (!decoder) return done(new UnsupportedEncodingError(`unsupported content encoding "${encoding}"`));
    const inflated = decoder() as Transform & { receivedEncodedLength: number };
    inflated.receivedEncodedLength = 0;
    payload.on('data', (chunk: Buffer) => (inflated.receivedEncodedLength += chunk.length));
    payload.on('error', (err) => inflated.destroy(err));
    payload.pipe(inflated);
    done(null, inflated);
  });
}
