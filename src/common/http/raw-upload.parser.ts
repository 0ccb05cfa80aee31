import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';

/** Fastify route config flag (set with `@RouteConfig(RAW_UPLOAD_ROUTE)`) of a route that takes a raw byte stream. */
export const RAW_UPLOAD_ROUTE = { rawUpload: true } as const;

/**
 * Raw uploads (`PUT /sessions/{id}/files/content`): on a route flagged with {@link RAW_UPLOAD_ROUTE}, a body of
 * `application/octet-stream` or of any media type no other parser claims is handed to the handler as the unread
 * stream (the handler counts bytes against its quota while it writes them; nothing is buffered whole). On every
 * other route these bodies stay what they were: a 415 UNSUPPORTED_MEDIA_TYPE, so the API remains JSON-only.
 */
export function registerRawUploadParser(fastify: FastifyInstance): void {
  const handOver = (req: FastifyRequest, payload: Readable, done: (err: Error | null, body?: unknown) => void) => {
    const config = req.routeOptions.config as { rawUpload?: boolean } | undefined;
    if (config?.rawUpload !== true) return done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE());
    done(null, payload);
  };
  fastify.addContentTypeParser('application/octet-stream', handOver);
  fastify.addContentTypeParser('*', handOver);
}
