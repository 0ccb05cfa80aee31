import { Module } from '@nestjs/common';
import { AgentConfigModule } from '@app/modules/agent-config/agent-config.module';
import { SkillsRepository } from './skills.repository';
import { SkillsService } from './skills.service';
import { SkillsController } from './skills.controller';
import { AgentSkillsService } from './agent-skills.service';
import { AgentSkillsController } from './agent-skills.controller';

/** Skill packages with immutable releases, agent binding, the SKILL_CALL built-in and the release materializer. */
@Module({
  imports: [AgentConfigModule],
  controllers: [SkillsController, AgentSkillsController],
  providers: [SkillsRepository, SkillsService, AgentSkillsService],
  exports: [SkillsRepository],
})
export class SkillsModule {}
