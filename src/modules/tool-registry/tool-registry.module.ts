import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AiToolEntity } from './ai-tool.entity';
import { ToolRegistryRepository } from './tool-registry.repository';
import { ToolRegistryService } from './tool-registry.service';
import { ToolRegistryController } from './tool-registry.controller';
import { ToolSchemaCompiler } from './tool-schema.compiler';
import { BuiltinToolsSeeder } from './builtin-tools.seeder';
import { BuiltinToolCatalog } from './builtin-tool.catalog';
import { McpServiceHealthRegistry } from './mcp-service-health.registry';
import { ToolChecklistService } from './checklist/tool-checklist.service';

/** `ai_tool`: descriptors, schemas, admin CRUD. Knows nothing of the modules above it. */
@Module({
  imports: [TypeOrmModule.forFeature([AiToolEntity])],
  controllers: [ToolRegistryController],
  providers: [
    ToolRegistryRepository,
    ToolRegistryService,
    ToolSchemaCompiler,
    BuiltinToolsSeeder,
    BuiltinToolCatalog,
    McpServiceHealthRegistry,
    ToolChecklistService,
  ],
  exports: [
    BuiltinToolCatalog,
    ToolRegistryService,
    ToolRegistryRepository,
    ToolSchemaCompiler,
    McpServiceHealthRegistry,
    ToolChecklistService,
  ],
})
export class ToolRegistryModule {}
