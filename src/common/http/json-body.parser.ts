import type { FastifyInstance, FastifyRequest } from 'fastify';
import { assertJsonBodyDepth, JSON_BODY_LIMIT_BYTES } from './json-body';

/** An unreadable body: a 400 the error filter maps to VALIDATION_FAILED with the parser's reason. */
class JsonBodyReadError extends Error {
  readonly statusCode = 400;
}

/** A JSON body in another charset than UTF-8: 415 UNSUPPORTED_MEDIA_TYPE (as the Express body parser answered). */
class UnsupportedCharsetError extends Error {
  readonly statusCode = 415;
}

/** The `charset` parameter of a Content-Type, lower-cased, without quotes; undefined when there is none. */
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;

/**
 * The one JSON body parser of the API (Fastify content-type parser for `application/json`): at most
 * {@link JSON_BODY_LIMIT_BYTES} (Fastify answers 413 beyond), nesting checked on the raw bytes before parsing
 * (400 VALIDATION_FAILED past 64 levels), an empty body read as `{}`, and only an object or an array at the top
 * (strict, as the Express body parser was), UTF-8 only (another charset is a 415). Fastify's default text/plain
 * parser is removed: a body of any other media type is a 415.
 */
export function registerJsonBodyParser(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: JSON_BODY_LIMIT_BYTES },
    (req: FastifyRequest, raw: Buffer, done: (err: Error | null, body?: unknown) => void) => {
      const charset = CHARSET.exec(req.headers['content-type'] ?? '')?.[1].toLowerCase();
      if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')
        return done(new UnsupportedCharsetError(`unsupported charset "${charset.toUpperCase()}"`));
      try {
        done(null, parseJsonBody(raw));
      } catch (err) {
        done(err as Error);
      }
    },
  );
}

/** The body as the API reads it (see {@link registerJsonBodyParser}); throws a 400 error on unreadable JSON. */
function parseJsonBody(raw: Buffer): unknown {
  assertJsonBodyDepth(raw);
  const text = raw.toString('utf8');
  if (text.length === 0) return {};
  const first = /^[ \t\n\r]*(.)/.exec(text)?.[1];
  if (first !== '{' && first !== '[')
    throw new JsonBodyReadError(`Unexpected token '${first ?? ''}', "${text.slice(0, 20)}" is not valid JSON`);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new JsonBodyReadError((err as Error).message);
  }
}
