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
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, dataSource), { logger, bufferLogs: false });
  app.useBodyParser('json', { limit: '10mb' });
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();
  setUpSwagger(app);
  await app.init();
  return app;
}
