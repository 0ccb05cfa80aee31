import { format } from 'node:util';
import { REDACTED } from '@app/common/redaction';
import { hideSecretValues, valuesToHide } from '@app/modules/executors/secrets/tool-header.secrets';

/** Where the Nacos adapter writes; Nest's `Logger` fits. Omit it to drop the client's log lines. */
export interface NacosLogSink {
  debug(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** The console-shaped logger the npm `nacos` client calls (`info`, `warn`, `error`, `debug`). */
export interface NacosClientLogger {
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
  debug(...args: unknown[]): void;
}

const SECRET_PARAMS = /\b(password|accessToken)=[^&\s"',;)]*/gi;

/**
 * Builds the logger handed to the `nacos` client. The client logs whole error objects from its HTTP
 * library, whose `path` holds the query string, and it sends `password` in every query string, so
 * this logger keeps only error messages, masks `password=` and `accessToken=` values, and masks
 * the literal password wherever it appears, however it was escaped (see hideSecretValues). Client `info` lines (one
 * per push) go to `debug`.
 */
export function createNacosClientLogger(sink: NacosLogSink | undefined, secrets: readonly string[]): NacosClientLogger {
  if (!sink) {
    const drop = (): void => undefined;
    return { info: drop, warn: drop, error: drop, debug: drop };
  }
  const render = (args: unknown[]): string => redact(format(...args.map(describe)), secrets);
  return {
    info: (...args) => sink.debug(render(args)),
    debug: (...args) => sink.debug(render(args)),
    warn: (...args) => sink.warn(render(args)),
    error: (...args) => sink.error(render(args)),
  };
}

/** Masks secret query parameters and the literal secrets in one log line. */
export function redact(line: string, secrets: readonly string[]): string {
  return hideSecretValues(line.replace(SECRET_PARAMS, `$1=${REDACTED}`), valuesToHide(secrets, 1));
}

/** Errors become `name: message`, never the object with its request, response and query string. */
function describe(arg: unknown): unknown {
  return arg instanceof Error ? `${arg.name}: ${arg.message}` : arg;
}
