import type { FastifyRequest } from 'fastify';

/** Whether a request announces a body (a length above 0, or chunks). */
export function hasRequestBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
