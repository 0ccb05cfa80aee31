import { Logger } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { errorResponse } from '@app/common/errors/domain-error.filter';

const logger = new Logger('Errors');

/**
 * The HTTP side of a graceful shutdown. Nest closes the server after its destroy and before-shutdown hooks, and
 * Fastify's close stops accepting connections, closes the idle ones and waits for the requests in flight; what those
 * use (outbound pools, MCP sessions, the sandbox, the journal's lease renewal, the tool log) is torn down in
 * `onApplicationShutdown`, once they are answered. The answer to a request in flight closes its connection: left
 * open (keep-alive), the connection would hold the close until the client hung up. A request that reaches the
 * gateway once it is closing (in transit on a connection that was not idle when the idle ones were closed) runs
 * nothing: it is answered 503 SHUTTING_DOWN in the contract's error shape (Fastify's own 503 for it,
 * `return503OnClosing`, is turned off in create-gateway-app: its body is not the contract's).
 */
export function registerShutdownDrain(fastify: FastifyInstance): void {
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  fastify.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    const [status, body] = errorResponse(
      new DomainError(
        CommonErrorCode.SHUTTING_DOWN,
        'This gateway instance is shutting down and took nothing of this request; send it again (to another instance).',
      ),
      logger,
    );
    void reply.code(status).send(body);
  });
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) void reply.header('connection', 'close');
    done(null, payload);
  });
}
