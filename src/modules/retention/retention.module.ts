import { Module } from '@nestjs/common';
import { RetentionRepository } from './retention.repository';
import { RetentionService } from './retention.service';
import { RetentionJob } from './retention.job';

/** RETENTION_DAYS: the scheduled deletion of closed sessions, their rows, and old tool-log rows of no session. */
@Module({
  providers: [RetentionRepository, RetentionService, RetentionJob],
  exports: [RetentionService],
})
export class RetentionModule {}
