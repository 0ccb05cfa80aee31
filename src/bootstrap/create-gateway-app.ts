import { INestApplication, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from '@app/app.module';
import type { GatewayConfig } from '@app/config/gateway-config';
import { openDatabase } from '@app/database/open-database';
import { createValidationPipe } from '@app/common/errors/validation';
import { setUpSwagger } from './swagger';

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

/**
 * Builds the whole gateway (database opened and migrated first, then Nest with pipes, filter and Swagger).
 * `main.ts`, the e2e tests and the benchmarks all start the app through here.
 */
export async function createGatewayApp(config: GatewayConfig, options: { logger?: false } = {}): Promise<INestApplication> {
  const dataSource = await openDatabase({ url: config.databaseUrl, sqliteSynchronous: config.sqliteSynchronous });
  const logger = options.logger === false ? false : LEVELS.slice(0, LEVELS.indexOf(config.logLevel) + 1);
  // JSON only (no urlencoded parser), no ETag hashing of every response, no X-Powered-By.
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, dataSource), { logger, bufferLogs: false, bodyParser: false });
  app.useBodyParser('json', { limit: '10mb' });
  app.set('etag', false);
  app.disable('x-powered-by');
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();
  setUpSwagger(app);
  await app.init();
  return app;
}
