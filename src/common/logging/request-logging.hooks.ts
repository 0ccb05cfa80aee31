import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { storage } from 'nestjs-pino/storage';
import { redactText } from '@app/common/redaction';
import { RequestLogScope } from './request-log.scope';

/** The request's log scope, made in `preHandler` (absent for requests answered before the route). */
const SCOPE = Symbol('requestLogScope');
/** Whether the completion line was written (an aborted request may still be answered later). */
const LOGGED = Symbol('requestLogged');

type LoggedRequest = FastifyRequest & { [SCOPE]?: RequestLogScope; [LOGGED]?: boolean };

/**
 * The request logging, on Fastify's own request id (`genReqId`) and hooks: echoes the id in `X-Request-Id`,
 * opens the request's log scope (nestjs-pino's storage) around the route, so Nest's guards, pipes,
 * interceptors, handler and filter log with its fields, and, when `completionLines`, writes one completion
 * line per request (`request completed`, at error level for a 5xx) with the request's fields, method, URL
 * (query redacted), status and `responseTime`. Hooks, not a Nest middleware: middleware runs before the body
 * is read, and the async context does not survive Fastify's body reading; `preHandler` runs after it, right
 * before the route. No per-request logger is made unless a line is written.
 */
export function registerRequestLogging(fastify: FastifyInstance, logger: Logger, completionLines: boolean): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });
  fastify.addHook('preHandler', (request, _reply, done) => {
    const scope = RequestLogScope.forRequest(logger, request.id);
    (request as LoggedRequest)[SCOPE] = scope;
    storage.run(scope, done);
  });
  if (!completionLines) return;
  fastify.addHook('onResponse', (request, reply, done) => {
    logCompletion(logger, request, reply, false);
    done();
  });
  fastify.addHook('onRequestAbort', (request, done) => {
    logCompletion(logger, request, undefined, true);
    done();
  });
}

function logCompletion(
  logger: Logger,
  request: LoggedRequest,
  reply: FastifyReply | undefined,
  aborted: boolean,
): void {
  if (request[LOGGED]) return;
  request[LOGGED] = true;
  const statusCode = reply?.statusCode;
  const level = statusCode !== undefined && statusCode >= 500 ? 'error' : 'info';
  if (!logger.isLevelEnabled(level)) return;
  const url = request.url.includes('?') ? redactText(request.url) : request.url;
  logger[level](
    {
      ...(request[SCOPE]?.requestFields ?? { requestId: request.id }),
      req: { method: request.method, url },
      res: { statusCode },
      responseTime: Math.round(reply?.elapsedTime ?? 0),
      ...(aborted && { aborted: true }),
    },
    aborted ? 'request aborted by the client' : level === 'error' ? 'request errored' : 'request completed',
  );
}
