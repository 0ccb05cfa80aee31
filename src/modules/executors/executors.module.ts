import { Module, OnModuleInit } from '@nestjs/common';
import { MetricsModule } from '@app/modules/metrics/metrics.module';
import { OutboundGuard } from './outbound/outbound-guard';
import { OutboundHttpAgent } from './outbound/outbound-http.agent';
import { HttpToolExecutor } from './http/http-tool.executor';
import { McpClientPool } from './mcp/mcp-client.pool';
import { McpRemoteToolExecutor } from './mcp/mcp-remote.executor';
import { ToolCallPolicy } from './call-policy/tool-call-policy';
import { CallTargetRegistry } from './call-path/call-target.registry';
import { ToolCallPathService } from './call-path/tool-call-path.service';
import { ToolCallLogService } from './tool-call-log/tool-call-log.service';
import { ToolCallLogQuery } from './tool-call-log/tool-call-log.query';
import { ToolHeadersResolver } from './secrets/tool-headers.resolver';
import { TenantSecretsModule } from '@app/modules/tenant-secrets/tenant-secrets.module';
import { ToolCallsAdminController } from './tool-call-log/tool-calls-admin.controller';

/**
 * The call path and what it shares: executors per serviceType (other modules register theirs in the
 * CallTargetRegistry), the outbound guard and keep-alive Agent, the MCP client pool, the timeout/retry
 * policy and the tool log. Knows nothing of journals or approvals.
 */
@Module({
  imports: [TenantSecretsModule, MetricsModule],
  controllers: [ToolCallsAdminController],
  providers: [
    OutboundGuard,
    OutboundHttpAgent,
    HttpToolExecutor,
    McpClientPool,
    McpRemoteToolExecutor,
    ToolCallPolicy,
    CallTargetRegistry,
    ToolCallPathService,
    ToolCallLogService,
    ToolCallLogQuery,
    ToolHeadersResolver,
  ],
  exports: [
    ToolHeadersResolver,
    OutboundGuard,
    OutboundHttpAgent,
    McpClientPool,
    ToolCallPolicy,
    CallTargetRegistry,
    ToolCallPathService,
    ToolCallLogService,
  ],
})
export class ExecutorsModule implements OnModuleInit {
  constructor(
    private readonly targets: CallTargetRegistry,
    private readonly http: HttpToolExecutor,
    private readonly mcpRemote: McpRemoteToolExecutor,
  ) {}

  onModuleInit(): void {
    this.targets.registerExecutor(this.http);
    this.targets.registerExecutor(this.mcpRemote);
  }
}
