import { storage } from 'nestjs-pino/storage';
import { RequestLogScope } from './request-log.scope';

/** Fields that say whose work a log line belongs to. */
export interface LogFields {
  tenantId?: string;
  sessionId?: string;
  toolCallId?: string;
  tool?: string;
}

/**
 * Adds fields to every later log line of the current request, the request's completion line included.
 * Outside a request (start-up, scheduled jobs) it does nothing.
 */
export function bindLogFields(fields: LogFields): void {
  const scope = storage.getStore();
  // No request scope: outside a request, or an app built without the request logging (a testing module).
  if (scope instanceof RequestLogScope) scope.bind(fields);
}

/** Runs `fn` with `fields` on its log lines only (e.g. one tool call of a batch); the request's other lines keep theirs. */
export function withLogFields<T>(fields: LogFields, fn: () => T): T {
  const scope = storage.getStore();
  if (!(scope instanceof RequestLogScope)) return fn();
  return storage.run(scope.with(fields), fn);
}
