import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ToolRegistryModule } from '@app/modules/tool-registry/tool-registry.module';
import { ToolRegistryService } from '@app/modules/tool-registry/tool-registry.service';
import { RiskDetector } from './risk/risk-detector';
import { RiskEvaluateController } from './risk/risk-evaluate.controller';
import { RISK_TOOL_SCHEMA_LOOKUP, RiskToolSchemaLookup } from './risk/risk-tool-schema.lookup';
import { HitlRequestEntity } from './requests/hitl-request.entity';
import { HitlRequestsRepository } from './requests/hitl-requests.repository';
import { HitlAdminController } from './requests/hitl-admin.controller';

/** Risk detection, approval rules and the requests for human decisions. */
@Module({
  imports: [TypeOrmModule.forFeature([HitlRequestEntity]), ToolRegistryModule],
  controllers: [RiskEvaluateController, HitlAdminController],
  providers: [
    RiskDetector,
    HitlRequestsRepository,
    {
      provide: RISK_TOOL_SCHEMA_LOOKUP,
      inject: [ToolRegistryService],
      useFactory:
        (tools: ToolRegistryService): RiskToolSchemaLookup =>
        async (toolName, tenantId) =>
          (await tools.findByNameInScope(toolName, tenantId))?.parameters,
    },
  ],
  exports: [RiskDetector, HitlRequestsRepository],
})
export class HitlModule {}
