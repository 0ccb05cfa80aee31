import { CommonErrorCode } from './common.errors';
import { DomainError } from './domain-error';

/**
 * For `.catch` of a lookup whose missing row is an answer: null for a NOT_FOUND, any other error thrown on. A bare
 * `.catch(() => null)` read a database that was busy or unreachable as a row that is gone.
 */
export function nullIfNotFound(err: unknown): null {
  if (err instanceof DomainError && err.code === CommonErrorCode.NOT_FOUND) return null;
  throw err;
}
