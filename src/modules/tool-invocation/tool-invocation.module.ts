import { Module } from '@nestjs/common';
import { ToolRegistryModule } from '@app/modules/tool-registry/tool-registry.module';
import { AgentConfigModule } from '@app/modules/agent-config/agent-config.module';
import { HitlModule } from '@app/modules/hitl/hitl.module';
import { RiskModule } from '@app/modules/risk/risk.module';
import { ExecutorsModule } from '@app/modules/executors/executors.module';
import { ToolCallPreparer } from './tool-call.preparer';
import { ExecuteDirectService } from './execute-direct.service';
import { ExecuteDirectController } from './execute-direct.controller';

/** What happens to a proposed call before it runs (shared with `act`), and executeDirect. */
@Module({
  imports: [ToolRegistryModule, AgentConfigModule, HitlModule, RiskModule, ExecutorsModule],
  controllers: [ExecuteDirectController],
  providers: [ToolCallPreparer, ExecuteDirectService],
  exports: [ToolCallPreparer],
})
export class ToolInvocationModule {}
