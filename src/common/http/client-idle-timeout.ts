import type { FastifyInstance, FastifyReply } from 'fastify';
import { hasRequestBody } from './request-body';

/**
 * CLIENT_IDLE_TIMEOUT_MS on the way in: while a request's body is being received, a client that sends nothing for
 * that long has its connection closed (as nginx's client_body_timeout), so a body sent a byte a minute, or not at
 * all after its headers, no longer holds a connection, a parser and an upload's staging file for ever. Bytes that
 * keep coming, however slowly, keep it open; once the body is read, the route takes the time it needs. 0: none.
 */
export function registerClientIdleTimeout(fastify: FastifyInstance, idleMs: number): void {
  if (idleMs === 0) return;
  fastify.addHook('onRequest', (request, _reply, done) => {
    const socket = request.raw.socket;
    // Fastify's inject (light-my-request) gives the request a stand-in socket without timers.
    if (hasRequestBody(request) && typeof socket.setTimeout === 'function') {
      socket.setTimeout(idleMs);
      request.raw.once('end', () => socket.setTimeout(0));
    }
    done();
  });
}

/**
 * CLIENT_IDLE_TIMEOUT_MS on the way out, for a file streamed to the client: a client that reads nothing for that
 * long has its connection closed (as nginx's send_timeout), releasing the open file; one that reads slowly keeps it.
 * After the answer, Node's keep-alive handling sets the connection's own timeout again. 0: none.
 */
export function closeIfReaderStalls(reply: FastifyReply, idleMs: number): void {
  if (idleMs > 0 && typeof reply.raw.socket?.setTimeout === 'function') reply.raw.setTimeout(idleMs);
}
