import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Response } from 'express';
import { DomainError } from './domain-error';
import { CommonErrorCode } from './common.errors';
import { ERROR_HTTP_STATUS } from './error-codes';

export interface ErrorBody {
  error: { code: string; message: string; details: Record<string, unknown> };
}

/** Maps every error to the contract's `{"error":{code,message,details}}` body (see {@link errorResponse}). */
@Catch()
export class DomainErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const [status, body] = errorResponse(exception, this.logger);
    res.status(status).json(body);
  }
}

/**
 * The status and body of an error, for the filter and the direct routes alike. Domain errors carry their
 * own; HTTP-level failures (404 route, 413 body, unreadable body) get the common codes; anything else is
 * a 500 with an incident id, logged with its stack.
 */
export function errorResponse(exception: unknown, logger: Pick<Logger, 'error'>): [number, ErrorBody] {
  if (exception instanceof DomainError) {
    return [ERROR_HTTP_STATUS[exception.code], body(exception.code, exception.message, exception.details)];
  }
  const status = httpStatusOf(exception);
  if (status === 404) {
    return [404, body(CommonErrorCode.ROUTE_NOT_FOUND, 'No endpoint matches this method and path; see /docs for the API.')];
  }
  if (status === 413) {
    return [413, body(CommonErrorCode.PAYLOAD_TOO_LARGE, 'The request body is too large; send a smaller body.')];
  }
  if (status !== undefined && status >= 400 && status < 500) {
    const reason = exception instanceof Error ? exception.message : 'bad request';
    return [400, body(CommonErrorCode.VALIDATION_FAILED, `The request could not be read: ${reason}. Send a valid JSON body.`, { fields: [] })];
  }
  const incidentId = randomUUID();
  logger.error(`Unhandled error (incident ${incidentId})`, exception instanceof Error ? exception.stack : String(exception));
  return [500, body(CommonErrorCode.INTERNAL, `An unexpected error occurred (incident ${incidentId}); the server log has the details.`, { incidentId })];
}

function body(code: string, message: string, details: Record<string, unknown> = {}): ErrorBody {
  return { error: { code, message, details } };
}

function httpStatusOf(exception: unknown): number | undefined {
  if (exception instanceof HttpException) return exception.getStatus();
  const candidate = (exception as { status?: unknown; statusCode?: unknown } | null) ?? {};
  const status = candidate.status ?? candidate.statusCode;
  return typeof status === 'number' ? status : undefined;
}
