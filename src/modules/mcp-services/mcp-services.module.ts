import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AiToolEntity } from '@app/modules/tool-registry/ai-tool.entity';
import { ToolRegistryModule } from '@app/modules/tool-registry/tool-registry.module';
import { ExecutorsModule } from '@app/modules/executors/executors.module';
import { CallTargetRegistry } from '@app/modules/executors/call-path/call-target.registry';
import { McpServiceEntity } from './mcp-service.entity';
import { McpSyncLeaseEntity } from './mcp-sync-lease.entity';
import { NACOS_NAMING_PROVIDER } from './nacos/nacos-naming.provider';
import { NacosInstanceCache } from './nacos/nacos-instance.cache';
import { McpServiceRepository } from './mcp-service.repository';
import { McpSyncLeaseRepository } from './mcp-sync-lease.repository';
import { McpToolRowsRepository } from './mcp-tool-rows.repository';
import { McpSyncLeases } from './mcp-sync.lease';
import { McpServiceLister } from './mcp-service.lister';
import { McpToolSyncWriter } from './mcp-tool-sync.writer';
import { McpServiceHealthRecorder } from './mcp-service-health.recorder';
import { McpServiceSyncService } from './mcp-service-sync.service';
import { McpServiceWatcher } from './mcp-service.watcher';
import { McpServiceRepairService } from './mcp-service-repair.service';
import { McpServiceRepairJob } from './mcp-service-repair.job';
import { McpServiceDirectory } from './mcp-service.directory';
import { McpNacosToolExecutor } from './nacos/mcp-nacos.executor';
import { McpServicesService } from './mcp-services.service';
import { McpServiceMemory } from './mcp-service.memory';
import { McpServicesController } from './mcp-services.controller';

/**
 * MCP services from Nacos or a static URL: admin registration, tool sync into `ai_tool` (leased per
 * upstream service), instance-change and tools/list_changed events, the scheduled health check and repair,
 * and the MCP_NACOS executor. Needs `ScheduleModule.forRoot()` once in the application.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([McpServiceEntity, McpSyncLeaseEntity, AiToolEntity]),
    ToolRegistryModule,
    ExecutorsModule,
  ],
  controllers: [McpServicesController],
  providers: [
    NACOS_NAMING_PROVIDER,
    NacosInstanceCache,
    McpServiceRepository,
    McpSyncLeaseRepository,
    McpToolRowsRepository,
    McpSyncLeases,
    McpServiceLister,
    McpToolSyncWriter,
    McpServiceHealthRecorder,
    McpServiceSyncService,
    McpServiceWatcher,
    McpServiceRepairService,
    McpServiceRepairJob,
    McpServiceDirectory,
    McpNacosToolExecutor,
    McpServicesService,
    McpServiceMemory,
  ],
  exports: [McpServiceSyncService, McpServiceRepairService],
})
export class McpServicesModule implements OnModuleInit {
  constructor(
    private readonly targets: CallTargetRegistry,
    private readonly nacosExecutor: McpNacosToolExecutor,
  ) {}

  onModuleInit(): void {
    this.targets.registerExecutor(this.nacosExecutor);
  }
}
