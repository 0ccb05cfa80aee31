import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ScheduleModule } from '@nestjs/schedule';
import request from 'supertest';
import { AppModule } from '@app/app.module';
import { setUpSwagger } from '@app/bootstrap/swagger';
import { createValidationPipe } from '@app/common/errors/validation';
import { ERROR_HTTP_STATUS } from '@app/common/errors/error-codes';
import { loadGatewayConfig } from '@app/config/gateway-config';
import { NacosMcpSyncModule } from '@app/modules/nacos-mcp-sync/nacos-mcp-sync.module';
import { NacosMcpSyncErrorCode } from '@app/modules/nacos-mcp-sync/nacos-mcp-sync.errors';
import { TEST_ADMIN_KEY, type TestGateway } from '@test/support/gateway-test-app';
import { openMcpSyncDatabase } from './mcp-sync-database';

/** HTTP statuses of the MCP sync's error codes (what the lead adds to error-codes.ts). */
const MCP_SYNC_STATUSES: Record<NacosMcpSyncErrorCode, number> = {
  [NacosMcpSyncErrorCode.MCP_SERVICE_NAME_TAKEN]: 409,
  [NacosMcpSyncErrorCode.NACOS_NOT_CONFIGURED]: 409,
  [NacosMcpSyncErrorCode.MCP_SERVICE_UNREACHABLE]: 502,
};

@Module({})
class McpSyncTestRootModule {
  static forRoot(app: DynamicModule): DynamicModule {
    return { module: McpSyncTestRootModule, imports: [app, ScheduleModule.forRoot(), NacosMcpSyncModule] };
  }
}

/**
 * The whole gateway in-process, as `startTestGateway` starts it, plus what the MCP sync needs until the lead
 * wires it into AppModule (its module, ScheduleModule, its entities and migration, its error statuses);
 * once wired, every addition here is a no-op. Test-friendly defaults: loopback allowed for outbound
 * calls, repair off, a short debounce; override any of them through `env`.
 */
export async function startMcpSyncGateway(databaseUrl: string, env: Record<string, string> = {}): Promise<TestGateway> {
  const config = loadGatewayConfig({
    NODE_ENV: 'test',
    ADMIN_API_KEY: TEST_ADMIN_KEY,
    DATABASE_URL: databaseUrl,
    DEMO_TOOLS_ENABLED: 'false',
    MCP_REPAIR_ENABLED: 'false',
    MCP_SYNC_DEBOUNCE_MS: '200',
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
    TOOL_RETRY_BASE_DELAY_MS: '20',
    LOG_LEVEL: 'error',
    ...env,
  });
  const statuses = ERROR_HTTP_STATUS as Record<string, number>;
  for (const [code, status] of Object.entries(MCP_SYNC_STATUSES)) statuses[code] ??= status;
  const dataSource = await openMcpSyncDatabase(config.databaseUrl);
  const app = await NestFactory.create<NestExpressApplication>(McpSyncTestRootModule.forRoot(AppModule.forRoot(config, dataSource)), { logger: false });
  app.useBodyParser('json', { limit: '10mb' });
  app.useGlobalPipes(createValidationPipe());
  setUpSwagger(app);
  await app.init();
  return {
    app,
    config,
    http: request(app.getHttpServer()),
    admin: { Authorization: `Bearer ${TEST_ADMIN_KEY}` },
    close: () => app.close(),
  };
}
