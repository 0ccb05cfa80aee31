import { ConsoleLogger, type LoggerService, type LogLevel } from '@nestjs/common';
import pino, { type DestinationStream, type Logger as PinoLogger } from 'pino';
import type { GatewayConfig } from '@app/config/gateway-config';
import { redactText } from '@app/common/redaction';
import { isFieldLine, type FieldLine } from './log-context';

/** LOG_LEVEL (Nest's names) as pino levels. */
const PINO_LEVELS: Record<GatewayConfig['logLevel'], pino.Level> = {
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
};

/**
 * Paths pino censors in any object it logs. The request serializer below keeps no headers at all; these catch
 * headers that code logs some other way (an error carrying its request, a logged header map).
 */
const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'headers["x-api-key"]',
  '*.headers.authorization',
  '*.headers.cookie',
];

/** How the gateway logs: the root pino logger and the chosen format. */
export interface GatewayLogging {
  format: 'json' | 'pretty';
  logger: PinoLogger;
}

/** LOG_FORMAT=auto: Nest's coloured lines for a developer at a terminal, JSON lines everywhere else. */
export function resolveLogFormat(
  config: Pick<GatewayConfig, 'logFormat' | 'nodeEnv'>,
  isTty: boolean,
): 'json' | 'pretty' {
  if (config.logFormat !== 'auto') return config.logFormat;
  return config.nodeEnv === 'development' && isTty ? 'pretty' : 'json';
}

/**
 * The gateway's loggers. A request's completion line, and every line written with `fieldLine`, carry the fields of
 * the work they belong to (`requestId`, `tenantId`, `sessionId`, `toolCallId`, `tool`, see `log-context.ts`);
 * every message and error text goes through the product's free-text redaction,
 * so a secret that reaches a log call is masked. In `pretty` format there are no per-request lines (the
 * request id is still made and echoed). `silent` (tests) logs nothing.
 */
export function createGatewayLogging(
  config: GatewayConfig,
  options: { silent?: boolean; destination?: DestinationStream } = {},
): GatewayLogging {
  const format = resolveLogFormat(config, process.stdout.isTTY === true);
  const logger = pino(
    {
      level: options.silent ? 'silent' : PINO_LEVELS[config.logLevel],
      redact: { paths: REDACT_PATHS, censor: '***' },
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: serializeError },
      hooks: {
        logMethod(args, method) {
          for (let i = 0; i < args.length; i++)
            if (typeof args[i] === 'string') args[i] = redactText(args[i] as string);
          // A line with fields (`fieldLine`) carries its message inside the object.
          const first: unknown = args[0];
          if (isFieldLine(first)) first.msg = redactText(first.msg);
          method.apply(this, args);
        },
      },
    },
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
  return { format, logger };
}

/**
 * Nest's static `Logger` from the moment the configuration is read until the app installs its own: with JSON logs, the
 * lines of a start-up that fails before the app exists (the database cannot be opened or migrated) are JSON lines
 * too, redacted alike, not Nest's default coloured text. Pretty logs keep Nest's default until then (`undefined`).
 */
export function createStartupLogger(config: GatewayConfig): LoggerService | undefined {
  if (resolveLogFormat(config, process.stdout.isTTY === true) !== 'json') return undefined;
  // Warnings at start are written even with LOG_LEVEL=error, as Nest's default logger did: the one-time admin key.
  const logLevel = config.logLevel === 'error' ? 'warn' : config.logLevel;
  return new PinoStartupLogger(createGatewayLogging({ ...config, logLevel }).logger);
}

/** Nest's `LoggerService` on a pino logger: the last string argument is the context (as Nest's `Logger` passes it). */
class PinoStartupLogger implements LoggerService {
  constructor(private readonly pino: PinoLogger) {}
  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }
  private write(level: pino.Level, message: unknown, params: unknown[]): void {
    const strings = params.filter((p): p is string => typeof p === 'string');
    const context = strings.pop();
    const stack = strings.join('\n');
    const fields = { ...(context && { context }), ...(stack && { stack: redactText(stack) }) };
    this.pino[level](fields, typeof message === 'string' ? message : JSON.stringify(message));
  }
}

/**
 * An error as a log line keeps its type, code, message and stack (the last two redacted) and nothing else: other
 * properties are the error's payload (a TypeORM `QueryFailedError`'s query and parameters, a driver's SQL with its
 * values filled in), which would reach the log unredacted.
 */
function serializeError(err: unknown): unknown {
  const plain = pino.stdSerializers.err(err as Error) as
    { type?: string; code?: unknown; message?: string; stack?: string } | undefined;
  if (!plain || typeof plain !== 'object') return plain;
  return {
    type: plain.type,
    ...(typeof plain.code === 'string' && { code: plain.code }),
    message: plain.message && redactText(plain.message),
    stack: plain.stack && redactText(plain.stack),
  };
}

/**
 * Nest's console lines (LOG_FORMAT=pretty) with the redaction the JSON lines have: every message (an object's JSON
 * text too) and error stack goes through the free-text redaction before it is printed.
 */
class RedactingConsoleLogger extends ConsoleLogger {
  protected override stringifyMessage(message: unknown, logLevel: LogLevel): string {
    const text = isFieldLine(message) ? fieldLineText(message) : message;
    return redactText(String(super.stringifyMessage(text, logLevel)));
  }

  protected override printStackTrace(stack: string): void {
    super.printStackTrace(stack && redactText(stack));
  }
}

/** A line with fields as one text: `msg (requestId=…, tool=…)`, then its error's stack. */
function fieldLineText({ msg, err, ...fields }: FieldLine): string {
  const pairs = Object.entries(fields).map(([k, v]) => `${k}=${String(v)}`);
  const stack = err instanceof Error ? `\n${err.stack ?? err.message}` : '';
  return `${msg}${pairs.length > 0 ? ` (${pairs.join(', ')})` : ''}${stack}`;
}

/** The logger of the `pretty` format, at `logLevels`. */
export function createConsoleLogger(logLevels: LogLevel[]): LoggerService {
  return new RedactingConsoleLogger({ logLevels });
}
