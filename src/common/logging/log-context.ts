/** Fields that say whose work a log line belongs to. */
export interface LogFields {
  requestId?: string;
  tenantId?: string;
  sessionId?: string;
  runId?: string;
  toolCallId?: string;
  tool?: string;
}

/** The fields of one request's lines: its id, then what the request learns (tenant, session). */
export type RequestLogFields = LogFields & { requestId: string };

/** A log line with fields: pino writes them as the JSON line's keys; the pretty format prints them after `msg`. */
export type FieldLine = LogFields & { msg: string; err?: unknown };

const FIELDS = Symbol('requestLogFields');

/** What the request logging keeps on a request (Fastify's, or any object with its id). */
export type LoggedRequest = { id: string; [FIELDS]?: RequestLogFields };

/**
 * The log fields of a request: one object per request, made on first use. The request passes it down with its
 * work (see `ToolCallContext.log`), so a line written later carries what was bound since. There is no ambient
 * context: on Node 20 an `AsyncLocalStorage` turns on promise hooks for every promise of the process (`execute`
 * took about 9% less CPU at 8 callers without them: bench/HISTORY.md, "Session 27's check").
 */
export function requestLogFields(request: LoggedRequest): RequestLogFields {
  return (request[FIELDS] ??= { requestId: request.id });
}

/** Adds `fields` to every later line of the work that holds `into` (a request's fields, the completion line's too). */
export function bindLogFields(into: LogFields | undefined, fields: LogFields): void {
  if (into) Object.assign(into, fields);
}

/**
 * A line whose message carries the fields of the work it belongs to, for Nest's `Logger`:
 * `this.logger.warn(fieldLine('Tool x failed', ctx.log, { toolCallId }))`. Later fields win; `undefined` ones are
 * skipped, so work outside a request (a job, a run) simply logs fewer fields.
 */
export function fieldLine(msg: string, ...fields: (LogFields | undefined)[]): FieldLine {
  return Object.assign({}, ...fields, { msg }) as FieldLine;
}

/** Whether a logged value is a {@link FieldLine} (an object with a text `msg`). */
export function isFieldLine(value: unknown): value is FieldLine {
  return typeof value === 'object' && value !== null && typeof (value as { msg?: unknown }).msg === 'string';
}
