import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { SchedulerRegistry } from '@nestjs/schedule';
import { IntervalJob } from '@app/common/scheduling/interval.job';
import { KnowledgeBaseDeletions } from './knowledge-base.deletions';

/** Name of the interval in Nest's SchedulerRegistry. */
export const KNOWLEDGE_BASE_DELETION_JOB = 'knowledge-base-deletion';

/** How old a deletion must be for the job to finish it: its own request may still be at it. */
export const ABANDONED_DELETION_AFTER_MS = 60_000;

/**
 * Finishes the knowledge-base deletions a process that died left unfinished (see KnowledgeBaseDeletions), every
 * KNOWLEDGE_DELETION_INTERVAL_MS (0: off).
 */
@Injectable()
export class KnowledgeBaseDeletionJob extends IntervalJob {
  constructor(
    private readonly deletions: KnowledgeBaseDeletions,
    scheduler: SchedulerRegistry,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    super(scheduler, KNOWLEDGE_BASE_DELETION_JOB, config.knowledgeDeletionIntervalMs || null);
  }

  protected round(): Promise<number> {
    return this.deletions.finishAbandoned(Date.now() - ABANDONED_DELETION_AFTER_MS);
  }
}
