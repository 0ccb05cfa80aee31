import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** An incoming `X-Request-Id` is kept when it looks like an id (no spaces or control characters, at most 128 characters). */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * The id of a request: the caller's `X-Request-Id` when sane, else a new UUID (Fastify's `genReqId`; the
 * request logging echoes it in the response's `X-Request-Id`).
 */
export function requestIdOf(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
