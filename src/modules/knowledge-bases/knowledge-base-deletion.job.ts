import { Injectable } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { IntervalJob } from '@app/common/scheduling/interval.job';
import { KnowledgeBaseDeletions } from './knowledge-base.deletions';

/** Name of the interval in Nest's SchedulerRegistry. */
export const KNOWLEDGE_BASE_DELETION_JOB = 'knowledge-base-deletion';

/** How often the job looks for deletions left unfinished, and how old one must be (its own request may still run). */
export const ABANDONED_DELETION_AFTER_MS = 60_000;

/** Finishes the knowledge-base deletions a process that died left unfinished (see KnowledgeBaseDeletions). */
@Injectable()
export class KnowledgeBaseDeletionJob extends IntervalJob {
  constructor(
    private readonly deletions: KnowledgeBaseDeletions,
    scheduler: SchedulerRegistry,
  ) {
    super(scheduler, KNOWLEDGE_BASE_DELETION_JOB, ABANDONED_DELETION_AFTER_MS);
  }

  protected round(): Promise<number> {
    return this.deletions.finishAbandoned(Date.now() - ABANDONED_DELETION_AFTER_MS);
  }
}
