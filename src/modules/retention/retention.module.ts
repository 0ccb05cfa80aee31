import { Module } from '@nestjs/common';
import { RetentionRepository } from './retention.repository';
import { DEFAULT_RETENTION_SESSION_WALK, RETENTION_SESSION_WALK, RetentionService } from './retention.service';
import { RetentionJob } from './retention.job';
import { WorkspaceModule } from '@app/modules/workspace/workspace.module';
import { SkillsModule } from '@app/modules/skills/skills.module';
import { LoopActingModule } from '@app/modules/loop-acting/loop-acting.module';

/**
 * RETENTION_DAYS: the scheduled deletion of closed sessions, their rows, and old tool-log rows of no session; also
 * old artifacts (ARTIFACTS_RETENTION_DAYS) and unused unpacked skill releases.
 */
@Module({
  imports: [WorkspaceModule, SkillsModule, LoopActingModule],
  providers: [
    RetentionRepository,
    RetentionService,
    RetentionJob,
    { provide: RETENTION_SESSION_WALK, useValue: DEFAULT_RETENTION_SESSION_WALK },
  ],
  exports: [RetentionService],
})
export class RetentionModule {}
