import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import { whenResponseCloses } from './response-closed';

/** The reason of a {@link clientAbortSignal} abort (the call path's cancellation names it). */
class ClientClosedRequestError extends Error {
  constructor() {
    super('the client closed the request before the answer was sent');
    this.name = 'ClientClosedRequestError';
  }
}

/**
 * An AbortSignal that aborts when the client goes away (its connection closes) before the answer is complete.
 * A finished answer closes without aborting. One AbortController and one listener per request.
 */
function clientAbortSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  whenResponseCloses(res, () => res.writableFinished || controller.abort(new ClientClosedRequestError()));
  return controller.signal;
}

/** Reads the client signal off the request's node:http response (under Fastify's reply). */
function clientSignalOfRequest(_data: unknown, ctx: ExecutionContext): AbortSignal {
  return clientAbortSignal(ctx.switchToHttp().getResponse<FastifyReply>().raw);
}

/**
 * The request's client signal: aborted when the client disconnects before the answer is sent. Pass it to the
 * call path as its outer signal so that a caller who gave up does not keep a tool running.
 */
export const ClientSignal = createParamDecorator(clientSignalOfRequest);
