import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ErrorResponseDto } from './error-response.dto';

const DESCRIPTIONS: Record<number, string> = {
  400: 'VALIDATION_FAILED: the body, query or path is invalid; details.fields names each problem',
  401: 'UNAUTHENTICATED: no key, or an unknown key',
  403: "FORBIDDEN: the key has the wrong role, or its tenant may not do this (another tenant's or a platform-wide resource, a namespace not assigned to it); the message says which",
  404: 'NOT_FOUND: no such resource in your tenant',
  409: 'Conflict (see the error code)',
  415: 'UNSUPPORTED_MEDIA_TYPE: the body is not of the content type the route reads',
  429: 'TOO_MANY_REQUESTS: a limit was reached (the message names it: RATE_LIMIT_PER_MINUTE for the key, AUTH_FAILURES_PER_MINUTE for failed authentications from the address, or a limit of open requests); retry after the Retry-After header when present',
  502: 'An upstream service (an MCP server, an HTTP knowledge base) did not answer, or not as it must; the error code names which',
};

function apiResponses(statuses: number[]) {
  return applyDecorators(
    ...[...new Set(statuses)].map((status) =>
      ApiResponse({ status, description: DESCRIPTIONS[status] ?? 'Error', type: ErrorResponseDto }),
    ),
  );
}

/**
 * Documents the error responses of an endpoint in Swagger; 401/403, and 429 (the rate limits, when set, refuse any
 * guarded request), are added to every guarded route.
 */
export function ApiErrors(...statuses: number[]) {
  return apiResponses([401, 403, 429, ...statuses]);
}

/**
 * {@link ApiErrors} for a route that every role's key may call (`@Roles('runtime', 'admin')`): no key is refused there
 * for its role, so 403 is documented only when the route names it.
 */
export function ApiErrorsForEveryRole(...statuses: number[]) {
  return apiResponses([401, 429, ...statuses]);
}
