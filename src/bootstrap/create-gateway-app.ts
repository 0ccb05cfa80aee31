import { INestApplication, Logger, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from '@app/app.module';
import type { GatewayConfig } from '@app/config/gateway-config';
import { openDatabase } from '@app/database/open-database';
import { createValidationPipe } from '@app/common/errors/validation';
import { API_KEY_RESOLVER, ApiKeyResolver } from '@app/common/auth/auth-context';
import { assertJsonBodyDepth, JSON_BODY_LIMIT_BYTES } from '@app/common/http/json-body';
import { DirectRouteExplorer } from '@app/common/http/direct-routes/direct-route.explorer';
import { DirectRouter } from '@app/common/http/direct-routes/direct-router';
import { installDirectRoutes } from '@app/common/http/direct-routes/install-direct-routes';
import { Logger as PinoNestLogger } from 'nestjs-pino';
import { createGatewayLogging } from '@app/common/logging/gateway-logging';
import { installRequestLogging } from '@app/common/logging/install-request-logging';
import { setUpSwagger } from './swagger';

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

/**
 * Builds the whole gateway (database opened and migrated first, then Nest with pipes, filter and Swagger, then
 * the direct routes in front of Express for the per-call endpoints, and the request logger in front of both).
 * Logs are JSON lines through pino, or Nest's coloured console lines (LOG_FORMAT); `logger: false` silences both.
 * `main.ts`, the e2e tests and the benchmarks all start the app through here.
 */
export async function createGatewayApp(config: GatewayConfig, options: { logger?: false } = {}): Promise<INestApplication> {
  const dataSource = await openDatabase({ url: config.databaseUrl, sqliteSynchronous: config.sqliteSynchronous });
  const logger = options.logger === false ? false : LEVELS.slice(0, LEVELS.indexOf(config.logLevel) + 1);
  const logging = createGatewayLogging(config, { silent: options.logger === false });
  const jsonLogs = logger !== false && logging.format === 'json';
  // JSON only (no urlencoded parser), no ETag hashing of every response, no X-Powered-By.
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, dataSource, logging), { logger, bufferLogs: jsonLogs, bodyParser: false });
  if (jsonLogs) app.useLogger(app.get(PinoNestLogger));
  // verify runs on the raw bytes before JSON.parse: a body nested too deep is a 400, never a stack overflow later.
  const jsonParserOptions = { limit: JSON_BODY_LIMIT_BYTES, verify: (_req: unknown, _res: unknown, raw: Buffer) => assertJsonBodyDepth(raw) };
  app.useBodyParser('json', jsonParserOptions);
  app.set('etag', false);
  app.disable('x-powered-by');
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();
  setUpSwagger(app);
  await app.init();
  if (config.httpDirectRoutes) {
    const router = new DirectRouter(app.get(DirectRouteExplorer).routes(), app.get<symbol, ApiKeyResolver>(API_KEY_RESOLVER, { strict: false }), JSON_BODY_LIMIT_BYTES);
    installDirectRoutes(app.getHttpServer(), router);
    if (logger !== false) new Logger('DirectRoutes').log(`Served ahead of Express: ${router.describe().join(', ')}`);
  }
  installRequestLogging(app.getHttpServer(), logging.httpLogger);
  return app;
}
