import type { Logger } from 'pino';
import type { Store } from 'nestjs-pino/storage';
import type { LogFields } from './log-context';

/** What every log line of one request carries: its id and the fields bound so far (tenant, session). */
interface RequestLogFields {
  fields: LogFields & { requestId: string };
  /** Bumped by each bind, so scopes rebuild their logger once on their next line. */
  version: number;
}

/**
 * The log context of a request, or of one part of it (a tool call of a batch), as nestjs-pino's storage holds
 * it: Nest's `Logger` writes through {@link logger}, a child of the root logger with the request's fields and
 * the scope's own. The child is made on the first line the scope writes (or whose level is asked for), not per
 * request: a request that logs nothing, the usual case past debug level, costs no child logger.
 */
export class RequestLogScope implements Store {
  private child?: Logger;
  private childVersion = -1;

  private constructor(
    private readonly root: Logger,
    private readonly request: RequestLogFields,
    private readonly own: LogFields | undefined,
  ) {}

  /** The scope of a whole request. */
  static forRequest(root: Logger, requestId: string): RequestLogScope {
    return new RequestLogScope(root, { fields: { requestId }, version: 0 }, undefined);
  }

  /** The request's fields, for its completion line. */
  get requestFields(): Readonly<LogFields & { requestId: string }> {
    return this.request.fields;
  }

  get logger(): Logger {
    if (!this.child || this.childVersion !== this.request.version) {
      this.child = this.root.child(this.own ? { ...this.request.fields, ...this.own } : this.request.fields);
      this.childVersion = this.request.version;
    }
    return this.child;
  }

  /** nestjs-pino's `PinoLogger.assign` sets the logger; it lasts until the request's fields change. */
  set logger(logger: Logger) {
    this.child = logger;
    this.childVersion = this.request.version;
  }

  /** Adds fields to every later line of the request (this scope, the others and the completion line). */
  bind(fields: LogFields): void {
    Object.assign(this.request.fields, fields);
    this.request.version++;
  }

  /** A scope of the same request whose lines also carry `fields`. */
  with(fields: LogFields): RequestLogScope {
    return new RequestLogScope(this.root, this.request, this.own ? { ...this.own, ...fields } : fields);
  }
}
