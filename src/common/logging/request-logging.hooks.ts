import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { redactText } from '@app/common/redaction';
import { requestLogFields, type LoggedRequest } from './log-context';

/** Whether the completion line was written (an aborted request may still be answered later). */
const LOGGED = Symbol('requestLogged');

type CompletedRequest = FastifyRequest & LoggedRequest & { [LOGGED]?: boolean };

/**
 * The request logging, on Fastify's own request id (`genReqId`) and hooks: echoes the id in `X-Request-Id` and,
 * when `completionLines`, writes one completion line per request (`request completed`, at error level for a 5xx)
 * with the request's fields (`requestLogFields`: its id, and the tenant and session bound while it ran), method,
 * URL (query redacted), status and `responseTime`. Lines written while the request runs get its fields from the
 * work that writes them (`fieldLine`), not from an ambient context. No per-request logger is made.
 */
export function registerRequestLogging(fastify: FastifyInstance, logger: Logger, completionLines: boolean): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
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
  request: CompletedRequest,
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
      ...requestLogFields(request),
      req: { method: request.method, url },
      res: { statusCode },
      responseTime: Math.round(reply?.elapsedTime ?? 0),
      ...(aborted && { aborted: true }),
    },
    aborted ? 'request aborted by the client' : level === 'error' ? 'request errored' : 'request completed',
  );
}
