import { Module } from '@nestjs/common';
import { AgentConfigModule } from '@app/modules/agent-config/agent-config.module';
import { ToolRegistryModule } from '@app/modules/tool-registry/tool-registry.module';
import { ExecutorsModule } from '@app/modules/executors/executors.module';
import { LoopActingModule } from '@app/modules/loop-acting/loop-acting.module';
import { SessionEventsModule } from '@app/modules/session-events/session-events.module';
import { SkillCallDispatcher } from './skill-call/skill-call.dispatcher';
import { SkillReminderSource } from './skill-call/skill-reminder.source';
import { ActiveSkillBinding } from './skill-call/active-skill.binding';
import { SkillReleaseMaterializer } from './skill-release.materializer';
import { SkillsRepository } from './skills.repository';
import { SkillsService } from './skills.service';
import { SkillsController } from './skills.controller';
import { AgentSkillsService } from './agent-skills.service';
import { AgentSkillsController } from './agent-skills.controller';

/** Skill packages with immutable releases, agent binding, the SKILL_CALL built-in and the release materializer. */
@Module({
  imports: [AgentConfigModule, ToolRegistryModule, ExecutorsModule, LoopActingModule, SessionEventsModule],
  controllers: [SkillsController, AgentSkillsController],
  providers: [
    SkillsRepository,
    SkillsService,
    AgentSkillsService,
    SkillCallDispatcher,
    SkillReminderSource,
    SkillReleaseMaterializer,
    ActiveSkillBinding,
  ],
  exports: [SkillsRepository, SkillReleaseMaterializer, ActiveSkillBinding],
})
export class SkillsModule {}
