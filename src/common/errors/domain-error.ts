import type { ErrorCode } from './error-codes';

/**
 * The one error type services throw. The global filter maps its `code` to an HTTP status;
 * `message` says what happened and how to fix it; `details` carries machine-readable context.
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}
