import { Module } from '@nestjs/common';
import { ToolRegistryModule } from '@app/modules/tool-registry/tool-registry.module';
import { ToolRegistryService } from '@app/modules/tool-registry/tool-registry.service';
import { RiskDetector } from './risk-detector';
import { RiskEvaluateController } from './risk-evaluate.controller';
import { RISK_TOOL_SCHEMA_LOOKUP, RiskToolSchemaLookup } from './risk-tool-schema.lookup';

/** The risk detector: classifies a call's arguments (shell, SQL, code, paths) before it runs; `POST /risk/evaluate`. */
@Module({
  imports: [ToolRegistryModule],
  controllers: [RiskEvaluateController],
  providers: [
    RiskDetector,
    {
      provide: RISK_TOOL_SCHEMA_LOOKUP,
      inject: [ToolRegistryService],
      useFactory:
        (tools: ToolRegistryService): RiskToolSchemaLookup =>
        async (toolName, tenantId) =>
          (await tools.findByNameInScope(toolName, tenantId))?.parameters,
    },
  ],
  exports: [RiskDetector],
})
export class RiskModule {}
