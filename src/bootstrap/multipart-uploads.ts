import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import fastifyMultipart from '@fastify/multipart';
import type { GatewayConfig } from '@app/config/gateway-config';
import { errorResponse } from '@app/common/errors/domain-error.filter';
import { SKILL_ZIP_OVERHEAD_BYTES } from '@app/modules/skills/skill-package.types';

/** The routes that read a multipart form (skill uploads); every other route reads JSON only. */
const MULTIPART_ROUTES = [/^\/api\/v1\/admin\/skills(\/[^/?]+\/releases)?\/?(\?.*)?$/i];

/** A multipart body sent to a JSON route: 415, as any other media type the route does not read. */
class MultipartNotAcceptedError extends Error {
  readonly statusCode = 415;
}

const logger = new Logger('Errors');

/**
 * Streamed multipart uploads (skill zips): one file part, a few small fields. The file is bounded by
 * SKILL_MAX_BYTES (plus zip overhead); what it unpacks to is counted again while reading it.
 */
export async function registerMultipartUploads(app: NestFastifyApplication, config: GatewayConfig): Promise<void> {
  await app.register(fastifyMultipart, {
    limits: {
      fileSize: config.skills.maxBytes + SKILL_ZIP_OVERHEAD_BYTES,
      files: 1,
      fields: 4,
      fieldSize: 1024,
      parts: 5,
      headerPairs: 100,
    },
  });
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRequest', async (req, reply) => {
      if (!req.headers['content-type']?.toLowerCase().startsWith('multipart/')) return;
      if (MULTIPART_ROUTES.some((route) => route.test(req.url))) return;
      const [status, body] = errorResponse(
        new MultipartNotAcceptedError(`${req.method} ${req.url.split('?')[0]} reads JSON only`),
        logger,
      );
      return reply.code(status).send(body);
    });
}
