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
}
