import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { DataSource } from 'typeorm';
import type { GatewayConfig } from './config/gateway-config';
import { GatewayConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { DomainErrorFilter } from './common/errors/domain-error.filter';
import { ApiKeysModule } from './modules/api-keys/api-keys.module';
import { ToolRegistryModule } from './modules/tool-registry/tool-registry.module';
import { AgentConfigModule } from './modules/agent-config/agent-config.module';
import { HitlModule } from './modules/hitl/hitl.module';
import { RiskModule } from './modules/risk/risk.module';
import { ExecutorsModule } from './modules/executors/executors.module';
import { ToolInvocationModule } from './modules/tool-invocation/tool-invocation.module';
import { LoopActingModule } from './modules/loop-acting/loop-acting.module';
import { WebSearchModule } from './modules/web-search/web-search.module';
import { FeignRegistrationModule } from './modules/feign-registration/feign-registration.module';
import { DemoOrdersModule } from './modules/demo-orders/demo-orders.module';
import { ScheduleModule } from '@nestjs/schedule';
import { McpServicesModule } from './modules/mcp-services/mcp-services.module';
import { HealthController } from './modules/health/health.controller';
import { TenantSecretsModule } from './modules/tenant-secrets/tenant-secrets.module';
import { RetentionModule } from './modules/retention/retention.module';
import { MetricsModule } from './modules/metrics/metrics.module';
import { TransferLimitModule } from './common/http/transfer-limit.interceptor';
import { GatewayLoggingModule } from './common/logging/gateway-logging.module';
import { createGatewayLogging, type GatewayLogging } from './common/logging/gateway-logging';
import { SkillsModule } from './modules/skills/skills.module';
import { ModelProvidersModule } from './modules/model-providers/model-providers.module';
import { AgentRunsModule } from './modules/agent-runs/agent-runs.module';
import { KnowledgeBasesModule } from './modules/knowledge-bases/knowledge-bases.module';
import { WorkspaceModule } from './modules/workspace/workspace.module';
import { RateLimitModule } from './modules/rate-limit/rate-limit.module';
import { ShutdownDeadline } from './bootstrap/shutdown-deadline';

/** Imports the feature modules; owns nothing else but the health route and the shutdown's deadline. */
@Module({})
export class AppModule {
  static forRoot(
    config: GatewayConfig,
    dataSource: DataSource,
    logging: GatewayLogging = createGatewayLogging(config),
  ): DynamicModule {
    return {
      module: AppModule,
      imports: [
        GatewayConfigModule.forRoot(config),
        GatewayLoggingModule.forRoot(logging),
        DatabaseModule.forDataSource(dataSource),
        ScheduleModule.forRoot(),
        MetricsModule,
        TransferLimitModule,
        ApiKeysModule,
        // After ApiKeysModule: its guard limits the key the key guard has put on the request.
        ...(config.rateLimitPerMinute > 0 ? [RateLimitModule.perKey(config.rateLimitPerMinute)] : []),
        ToolRegistryModule,
        AgentConfigModule,
        HitlModule,
        RiskModule,
        ExecutorsModule,
        ToolInvocationModule,
        LoopActingModule,
        WebSearchModule,
        FeignRegistrationModule,
        McpServicesModule,
        TenantSecretsModule,
        RetentionModule,
        SkillsModule,
        ModelProvidersModule,
        AgentRunsModule,
        KnowledgeBasesModule,
        WorkspaceModule,
        ...(config.demoToolsEnabled ? [DemoOrdersModule] : []),
      ],
      controllers: [HealthController],
      providers: [{ provide: APP_FILTER, useClass: DomainErrorFilter }, ShutdownDeadline],
    };
  }
}
