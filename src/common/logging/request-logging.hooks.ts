import type { FastifyInstance } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpLogger } from 'pino-http';
import { storage, Store } from 'nestjs-pino/storage';

type Logged = IncomingMessage & { id?: string; log: Store['logger'] };
type LoggedResponse = ServerResponse & { log: Store['responseLogger'] };

/**
 * Gives every request its logger and completion line (pino-http on the raw request, under Fastify's request
 * id, see `genReqId`), echoes the id in `X-Request-Id`, and opens the request's log context (nestjs-pino's
 * storage) around the route handler: Nest's guards, pipes, interceptors, handler and filter log with it.
 * Hooks, not a Nest middleware: middleware runs before the body is read, and the async context does not
 * survive Fastify's body reading; `preHandler` runs after it, right before the route.
 */
export function registerRequestLogging(fastify: FastifyInstance, httpLogger: HttpLogger): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    // pino-http keeps an id already on the request: its lines carry Fastify's.
    (request.raw as Logged).id = request.id;
    httpLogger(request.raw, reply.raw);
    done();
  });
  fastify.addHook('preHandler', (request, reply, done) => {
    storage.run(new Store((request.raw as Logged).log, (reply.raw as LoggedResponse).log), done);
  });
}
