/** Error codes shared by every module (auth, validation, lookups). */
export enum CommonErrorCode {
  /** A request body, query or path parameter failed validation; `details.fields` names each problem. */
  VALIDATION_FAILED = 'VALIDATION_FAILED',
  /** No key, or a key the gateway does not know. */
  UNAUTHENTICATED = 'UNAUTHENTICATED',
  /** The key is valid but its role may not call this endpoint. */
  FORBIDDEN = 'FORBIDDEN',
  /** The resource does not exist, or belongs to another tenant. */
  NOT_FOUND = 'NOT_FOUND',
  /** No route matches the method and path. */
  ROUTE_NOT_FOUND = 'ROUTE_NOT_FOUND',
  /** The request body is larger than the server accepts. */
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  /** A concurrent write changed the resource first; retry the request. */
  CONCURRENT_MODIFICATION = 'CONCURRENT_MODIFICATION',
  /** An unexpected failure; it is logged with a correlation id. */
  INTERNAL = 'INTERNAL',
  /** The path exists, but not with this HTTP method. */
  METHOD_NOT_ALLOWED = 'METHOD_NOT_ALLOWED',
  /** The body's Content-Type, charset or Content-Encoding is not one the server reads (send UTF-8 JSON). */
  UNSUPPORTED_MEDIA_TYPE = 'UNSUPPORTED_MEDIA_TYPE',
  /** Too many requests in a short time; wait (see `Retry-After` when present) and retry. */
  TOO_MANY_REQUESTS = 'TOO_MANY_REQUESTS',
  /** The request conflicts with the state of the server (an HTTP 409 raised outside the domain errors). */
  CONFLICT = 'CONFLICT',
  /** This instance is shutting down and takes no new request (nothing of it ran); send it again. */
  SHUTTING_DOWN = 'SHUTTING_DOWN',
  /** Any other HTTP 4xx refusal; the response keeps that status (a domain error with this code answers 400). */
  REQUEST_REJECTED = 'REQUEST_REJECTED',
}
