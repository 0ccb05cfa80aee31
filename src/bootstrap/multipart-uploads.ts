import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import fastifyMultipart from '@fastify/multipart';
import type { GatewayConfig } from '@app/config/gateway-config';

/** Room for a zip's own headers beyond the unpacked bytes it may hold (a zip of many tiny files). */
const ZIP_OVERHEAD_BYTES = 1024 * 1024;

/**
 * Streamed multipart uploads (skill zips): one file part, a few small fields. The file is bounded by
 * SKILL_MAX_BYTES (plus zip overhead); what it unpacks to is counted again while reading it.
 */
export async function registerMultipartUploads(app: NestFastifyApplication, config: GatewayConfig): Promise<void> {
  await app.register(fastifyMultipart, {
    limits: {
      fileSize: config.skills.maxBytes + ZIP_OVERHEAD_BYTES,
      files: 1,
      fields: 4,
      fieldSize: 1024,
      parts: 5,
      headerPairs: 100,
    },
  });
}
