import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ErrorResponseDto } from './error-response.dto';

const DESCRIPTIONS: Record<number, string> = {
  400: 'VALIDATION_FAILED: the body, query or path is invalid; details.fields names each problem',
  401: 'UNAUTHENTICATED: no key, or an unknown key',
  403: 'FORBIDDEN: the key has the wrong role',
  404: 'NOT_FOUND: no such resource in your tenant',
  409: 'Conflict (see the error code)',
  429: 'TOO_MANY_REQUESTS: a limit was reached (the message names it: RATE_LIMIT_PER_MINUTE for the key, AUTH_FAILURES_PER_MINUTE for failed authentications from the address, or a limit of open requests); retry after the Retry-After header when present',
  502: 'An upstream service (MCP server, Nacos) did not answer',
};

/**
 * Documents the error responses of an endpoint in Swagger; 401/403, and 429 (the rate limits, when set, refuse any
 * guarded request), are added to every guarded route.
 */
export function ApiErrors(...statuses: number[]) {
  const all = [...new Set([401, 403, 429, ...statuses])];
  return applyDecorators(
    ...all.map((status) =>
      ApiResponse({ status, description: DESCRIPTIONS[status] ?? 'Error', type: ErrorResponseDto }),
    ),
  );
}
