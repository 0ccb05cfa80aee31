import { storage, Store } from 'nestjs-pino/storage';

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
  const store = storage.getStore();
  // No request logger: outside a request, or an app built without the request logging (a testing module).
  if (!store?.logger) return;
  store.logger = store.logger.child(fields);
  store.responseLogger?.setBindings(fields);
}

/** Runs `fn` with `fields` on its log lines only (e.g. one tool call of a batch); the request's other lines keep theirs. */
export function withLogFields<T>(fields: LogFields, fn: () => T): T {
  const store = storage.getStore();
  if (!store?.logger) return fn();
  return storage.run(new Store(store.logger.child(fields), store.responseLogger), fn);
}
