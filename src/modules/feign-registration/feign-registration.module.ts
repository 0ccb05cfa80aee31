import { Module, OnModuleInit } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AiToolEntity } from '@app/modules/tool-registry/ai-tool.entity';
import { ToolRegistryModule } from '@app/modules/tool-registry/tool-registry.module';
import { FeignToolExplorer } from './feign-tool.explorer';
import { LocalToolHandlerRegistry } from './local-tool-handler.registry';
import { FeignToolRepository } from './feign-tool.repository';
import { FeignToolReconciler } from './feign-tool.reconciler';
import { FeignToolReportService } from './feign-tool-report.service';
import { FeignToolsController } from './feign-tools.controller';
import { FeignToolExecutor, LocalToolExecutor, LOCAL_TOOL_EXECUTORS } from './local-tool.executor';
import { ExecutorsModule } from '@app/modules/executors/executors.module';
import { CallTargetRegistry } from '@app/modules/executors/call-path/call-target.registry';

/**
 * `@Tool` / `@FeignTool`: scans decorated methods at module init, registers them in `ai_tool` after
 * bootstrap, reports drift, and exports the LOCAL and FEIGN executors for the executor factory.
 */
@Module({
  imports: [DiscoveryModule, ToolRegistryModule, ExecutorsModule, TypeOrmModule.forFeature([AiToolEntity])],
  controllers: [FeignToolsController],
  providers: [
    FeignToolExplorer,
    LocalToolHandlerRegistry,
    FeignToolRepository,
    FeignToolReconciler,
    FeignToolReportService,
    ...LOCAL_TOOL_EXECUTORS,
  ],
  exports: [LocalToolHandlerRegistry, FeignToolReconciler, ...LOCAL_TOOL_EXECUTORS],
})
export class FeignRegistrationModule implements OnModuleInit {
  constructor(
    private readonly targets: CallTargetRegistry,
    private readonly local: LocalToolExecutor,
    private readonly feign: FeignToolExecutor,
  ) {}

  onModuleInit(): void {
    this.targets.registerExecutor(this.local);
    this.targets.registerExecutor(this.feign);
  }
}
