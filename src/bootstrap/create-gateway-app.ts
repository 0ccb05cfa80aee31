import { LogLevel } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from '@app/app.module';
import type { GatewayConfig } from '@app/config/gateway-config';
import { openDatabase } from '@app/database/open-database';
import { createValidationPipe } from '@app/common/errors/validation';
import { JSON_BODY_LIMIT_BYTES } from '@app/common/http/json-body';
import { registerJsonBodyParser } from '@app/common/http/json-body.parser';
import { registerBodyDecompression } from '@app/common/http/body-decompression.hook';
import { registerRawUploadParser } from '@app/common/http/raw-upload.parser';
import { Logger as PinoNestLogger } from 'nestjs-pino';
import { createConsoleLogger, createGatewayLogging } from '@app/common/logging/gateway-logging';
import { registerRequestLogging } from '@app/common/logging/request-logging.hooks';
import { requestIdOf } from '@app/common/logging/request-id';
import { answerFrameworkError } from '@app/common/errors/framework-error.handler';
import { registerShutdownDrain } from './shutdown-drain';
import { registerClientIdleTimeout } from '@app/common/http/client-idle-timeout';
import { registerEarlyAuthentication } from '@app/common/auth/early-authentication.hook';
import { registerEarlyRateLimit } from '@app/modules/rate-limit/early-rate-limit.hook';
import { RateLimitBlocks } from '@app/modules/rate-limit/rate-limit-blocks';
import {
  API_KEY_RESOLVER,
  AUTH_FAILURE_LIMIT,
  type ApiKeyResolver,
  type AuthFailureLimit,
} from '@app/common/auth/auth-context';
import { setUpSwagger } from './swagger';
import { registerMultipartUploads } from './multipart-uploads';

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

/**
 * Builds the whole gateway (database opened and migrated first, then Nest on Fastify with pipes, filter and
 * Swagger). Every route, act and execute included, goes through Nest's router, guards, pipes, interceptors and
 * the error filter. Logs are JSON lines through pino, or Nest's coloured console lines (LOG_FORMAT);
 * `logger: false` silences both. `main.ts`, the e2e tests and the benchmarks all start the app through here;
 * the app is ready to serve (Fastify's plugins loaded) when this returns.
 */
export async function createGatewayApp(
  config: GatewayConfig,
  options: { logger?: false } = {},
): Promise<NestFastifyApplication> {
  const dataSource = await openDatabase({ url: config.databaseUrl, sqliteSynchronous: config.sqliteSynchronous });
  const logger = options.logger === false ? false : LEVELS.slice(0, LEVELS.indexOf(config.logLevel) + 1);
  const logging = createGatewayLogging(config, { silent: options.logger === false });
  const jsonLogs = logger !== false && logging.format === 'json';
  const adapter = new FastifyAdapter({
    bodyLimit: JSON_BODY_LIMIT_BYTES,
    // The request id: the caller's X-Request-Id when sane, else a new UUID (echoed by the request logging).
    genReqId: (req: IncomingMessage) => requestIdOf(req),
    // As Express matched: /path/ like /path, static segments in any letter case (parameters keep theirs).
    routerOptions: { ignoreTrailingSlash: true, caseSensitive: false },
    // Fastify's own answers (a path that does not decode) get the contract's error body too.
    frameworkErrors: answerFrameworkError,
    // A request arriving while the server closes: answered by the shutdown drain, in the contract's shape.
    return503OnClosing: false,
    // request.ip: the client a listed proxy forwards for (X-Forwarded-For), else the connection's peer.
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
  });
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(config, dataSource, logging),
    adapter,
    {
      // JSON lines: pino's (below); pretty lines: Nest's console logger, redacted alike.
      logger: logger === false || jsonLogs ? logger : createConsoleLogger(logger),
      bufferLogs: jsonLogs,
      bodyParser: false,
    },
  );
  if (jsonLogs) app.useLogger(app.get(PinoNestLogger));
  const fastify = app.getHttpAdapter().getInstance();
  // Read by the auth guard on every request: declared up front so requests keep one shape.
  fastify.decorateRequest('auth', null);
  registerShutdownDrain(fastify);
  registerClientIdleTimeout(fastify, config.clientIdleTimeoutMs);
  registerRequestLogging(fastify, logging.logger, jsonLogs);
  // Before anything reads or inflates a body (and before the multipart route check): no key, no body read.
  registerEarlyAuthentication(
    fastify,
    app.get<ApiKeyResolver>(API_KEY_RESOLVER),
    app.get<AuthFailureLimit>(AUTH_FAILURE_LIMIT),
  );
  // A key the rate limit refused: its next bodies are refused unread too (needs the key found just above).
  if (config.rateLimitPerMinute > 0) registerEarlyRateLimit(fastify, app.get(RateLimitBlocks));
  registerBodyDecompression(fastify);
  registerJsonBodyParser(fastify);
  await registerMultipartUploads(app, config);
  registerRawUploadParser(fastify);
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();
  setUpSwagger(app);
  await app.init();
  await fastify.ready();
  return app;
}
