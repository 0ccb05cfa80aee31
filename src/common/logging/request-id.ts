import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** An incoming `X-Request-Id` is kept when it looks like an id (no spaces or control characters, at most 128 characters). */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * The id of a request: the caller's `X-Request-Id` when sane, else a new UUID (Fastify's `genReqId`); echoed in
 * the response's `X-Request-Id` when `res` is given (the request logging echoes Fastify's request id).
 */
export function requestIdOf(req: IncomingMessage, res?: ServerResponse): string {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  res?.setHeader('X-Request-Id', id);
  return id;
}
