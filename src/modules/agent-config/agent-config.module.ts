import { SandboxModule } from '@app/modules/sandbox/sandbox.module';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AgentEntity } from './agent.entity';
import { AgentToolBindingEntity } from './agent-tool-binding.entity';
import { TenantCapabilityEntity } from './tenant-capability.entity';
import { AgentConfigRepository } from './agent-config.repository';
import { AgentConfigService } from './agent-config.service';
import { AgentsController } from './agents.controller';
import { TenantCapabilitiesController } from './tenant-capabilities.controller';
import { ToolSpecsController } from './tool-specs.controller';
import { AdminToolSpecsController } from './admin-tool-specs.controller';
import { VisibilitySnapshotService } from './visibility/visibility-snapshot.service';
import { ToolVisibilityService } from './visibility/tool-visibility.service';
import { ToolRegistryModule } from '@app/modules/tool-registry/tool-registry.module';
import { SessionStoreModule } from '@app/modules/loop-acting/sessions/session-store.module';
import { ToolSpecsReply } from './tool-specs.reply';
import { AgentSkillIdsGuard } from './agent-skill-ids.guard';
import { SessionRemindersRegistry } from './reminders/session-reminders.registry';
import { ToolSpecsSessionReader } from './reminders/tool-specs-session.reader';
import { ModelProvidersModule } from '@app/modules/model-providers/model-providers.module';
import { AgentLoopFieldsValidator } from './agent-loop-fields.validator';

/** Agents, bindings, capability policy, the visibility pipeline and the model-format emitters. */
@Module({
  imports: [
    TypeOrmModule.forFeature([AgentEntity, AgentToolBindingEntity, TenantCapabilityEntity]),
    SessionStoreModule,
    ToolRegistryModule,
    ModelProvidersModule,
    SandboxModule,
  ],
  controllers: [AgentsController, TenantCapabilitiesController, ToolSpecsController, AdminToolSpecsController],
  providers: [
    AgentConfigRepository,
    AgentConfigService,
    VisibilitySnapshotService,
    ToolVisibilityService,
    ToolSpecsReply,
    ToolSpecsSessionReader,
    SessionRemindersRegistry,
    AgentSkillIdsGuard,
    AgentLoopFieldsValidator,
  ],
  exports: [
    AgentConfigService,
    ToolVisibilityService,
    VisibilitySnapshotService,
    SessionRemindersRegistry,
    AgentSkillIdsGuard,
  ],
})
export class AgentConfigModule {}
