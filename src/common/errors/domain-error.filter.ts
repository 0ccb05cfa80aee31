import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { fieldLine, requestLogFields, type LoggedRequest, type LogFields } from '../logging/log-context';
import { DomainError } from './domain-error';
import { CommonErrorCode } from './common.errors';
import { ERROR_HTTP_STATUS } from './error-codes';
import { JSON_BODY_LIMIT_BYTES } from '../http/json-body';

export interface ErrorBody {
  error: { code: string; message: string; details: Record<string, unknown> };
}

/** Maps every error to the contract's `{"error":{code,message,details}}` body (see {@link errorResponse}). */
@Catch()
export class DomainErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const [status, body] = errorResponse(exception, this.logger, requestLogFields(http.getRequest<LoggedRequest>()));
    void reply.code(status).send(body);
  }
}

/**
 * The status and body of an error, for the filter and Fastify's own refusals alike. Domain errors carry their
 * own; HTTP-level 4xx failures (an `HttpException`, a body-parser error) keep their status and get the common
 * code of that status; anything else is a 500 with an incident id, logged with its stack and `fields` (the
 * request's).
 */
export function errorResponse(
  exception: unknown,
  logger: Pick<Logger, 'error'>,
  fields?: LogFields,
): [number, ErrorBody] {
  if (exception instanceof DomainError) {
    return [ERROR_HTTP_STATUS[exception.code], body(exception.code, exception.message, exception.details)];
  }
  const status = httpStatusOf(exception);
  if (status !== undefined && status >= 400 && status < 500) return httpRefusal(status, messageOf(exception));
  const incidentId = randomUUID();
  logger.error({
    ...fieldLine(`Unhandled error (incident ${incidentId})`, fields),
    err: exception instanceof Error ? exception : new Error(String(exception)),
  });
  return [
    500,
    body(
      CommonErrorCode.INTERNAL,
      `An unexpected error occurred (incident ${incidentId}); the server log has the details.`,
      { incidentId },
    ),
  ];
}

/** What each HTTP-level refusal (a Nest `HttpException`, a body-parser error) answers: its own status, a code and a hint. */
const HTTP_REFUSALS: Readonly<Record<number, { code: CommonErrorCode; message: (reason: string) => string }>> = {
  400: {
    code: CommonErrorCode.VALIDATION_FAILED,
    message: (r) => `The request could not be read: ${r || 'bad request'}. Send a valid JSON body.`,
  },
  401: {
    code: CommonErrorCode.UNAUTHENTICATED,
    message: (r) => `Authentication failed${suffix(r)}; send the header "Authorization: Bearer <key>".`,
  },
  403: { code: CommonErrorCode.FORBIDDEN, message: (r) => `This request is not allowed${suffix(r)}.` },
  404: {
    code: CommonErrorCode.ROUTE_NOT_FOUND,
    message: () => 'No endpoint matches this method and path; see /docs for the API.',
  },
  405: {
    code: CommonErrorCode.METHOD_NOT_ALLOWED,
    message: () => 'This path does not take this HTTP method; see /docs for the methods it takes.',
  },
  409: {
    code: CommonErrorCode.CONFLICT,
    message: (r) => `The request conflicts with the current state${suffix(r)}; reload and retry.`,
  },
  413: {
    code: CommonErrorCode.PAYLOAD_TOO_LARGE,
    message: () =>
      `The request body is larger than the ${JSON_BODY_LIMIT_BYTES} bytes (10 MB) the API reads (counted after Content-Encoding is undone); send a smaller body: split the data across several requests, or upload files to a session's workspace with PUT /api/v1/sessions/{id}/files/content.`,
  },
  415: {
    code: CommonErrorCode.UNSUPPORTED_MEDIA_TYPE,
    message: (r) =>
      `The body's media type is not supported${suffix(r)}; send "Content-Type: application/json" in UTF-8.`,
  },
  429: {
    code: CommonErrorCode.TOO_MANY_REQUESTS,
    message: () => 'Too many requests; wait (see the Retry-After header when present) and retry.',
  },
};

/** A 4xx refusal keeps its status; one without an entry above answers with {@link CommonErrorCode.REQUEST_REJECTED}. */
function httpRefusal(status: number, reason: string): [number, ErrorBody] {
  const known: (typeof HTTP_REFUSALS)[number] | undefined = HTTP_REFUSALS[status];
  if (!known)
    return [
      status,
      body(CommonErrorCode.REQUEST_REJECTED, `The request was refused (HTTP ${status})${suffix(reason)}.`),
    ];
  return [status, body(known.code, known.message(reason), status === 400 ? { fields: [] } : {})];
}

/** An error's message; read by shape, as an error made by Node's own code (zlib's) may come from another realm. */
function messageOf(exception: unknown): string {
  const message = (exception as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : '';
}

function suffix(reason: string): string {
  return reason ? `: ${reason}` : '';
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
