import type { FastifyInstance } from 'fastify';

/**
 * The HTTP side of a graceful shutdown. Nest closes the server after its destroy and before-shutdown hooks, and
 * Fastify's close stops accepting connections, closes the idle ones and waits for the requests in flight; what those
 * use (outbound pools, MCP sessions, the sandbox, the journal's lease renewal, the tool log) is torn down in
 * `onApplicationShutdown`, once they are answered. The answer to a request in flight closes its connection: left
 * open (keep-alive), the connection would hold the close until the client hung up. (A request still in transit as
 * its idle connection closed gets Fastify's own 503.)
 */
export function registerShutdownDrain(fastify: FastifyInstance): void {
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) void reply.header('connection', 'close');
    done(null, payload);
  });
}
