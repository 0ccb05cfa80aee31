import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { GatewayConfig, GatewayConfigError, loadGatewayConfig } from './config/gateway-config';
import { DatabaseStartupError } from './database/open-database';
import { redactDatabaseUrl } from './database/database-options';
import { createGatewayApp } from './bootstrap/create-gateway-app';
import { describeListenAddress } from './bootstrap/listen-address';
import { createStartupLogger } from './common/logging/gateway-logging';

const logger = new Logger('Gateway');

/** Outside production a missing admin key is generated and printed once, with a warning. */
function ensureAdminKey(config: GatewayConfig): GatewayConfig {
  if (config.adminApiKey) return config;
  if (config.nodeEnv === 'production') {
    throw new GatewayConfigError([
      'ADMIN_API_KEY is required in production: set it to a random value of 16+ characters (e.g. `openssl rand -hex 24`)',
    ]);
  }
  const generated = `gwadmin_${randomBytes(24).toString('base64url')}`;
  logger.warn(
    `ADMIN_API_KEY is not set: generated a one-time admin key for this run (set ADMIN_API_KEY to keep one):\n\n    ${generated}\n`,
  );
  return { ...config, adminApiKey: generated };
}

async function main(): Promise<void> {
  const loaded = loadGatewayConfig();
  // Until the app installs its logger: a start-up that fails before (the database) logs in LOG_FORMAT too.
  const startupLogger = createStartupLogger(loaded);
  if (startupLogger) Logger.overrideLogger(startupLogger);
  const config = ensureAdminKey(loaded);
  const app = await createGatewayApp(config);
  await app.listen(config.port, config.host);
  const bound = describeListenAddress(app.getHttpServer().address());
  logger.log(
    `Listening on ${bound.url} (${bound.scope}, HOST=${config.host}; database ${redactDatabaseUrl(config.databaseUrl)}); API docs at ${bound.localUrl}/docs`,
  );
}

main().catch((err: unknown) => {
  if (err instanceof GatewayConfigError || err instanceof DatabaseStartupError) {
    logger.error(err.message);
  } else {
    logger.error('Start-up failed', err instanceof Error ? err.stack : String(err));
  }
  process.exit(1);
});
