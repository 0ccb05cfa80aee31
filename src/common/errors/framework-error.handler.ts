import { Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorResponse } from './domain-error.filter';
import { requestLogFields } from '../logging/log-context';

const logger = new Logger('Errors');

/**
 * Fastify's `frameworkErrors`: the refusals Fastify makes before any route runs (a URL whose path does not
 * percent-decode, ...) answered with the contract's `{"error":{code,message,details}}` body, like every other error.
 */
export function answerFrameworkError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
  const [status, body] = errorResponse(error, logger, requestLogFields(request));
  void reply.code(status).send(body);
}
