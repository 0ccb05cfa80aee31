import { Inject, Injectable } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { IntervalJob } from '@app/common/scheduling/interval.job';
import { SubagentTasksCloseHook } from './subagent-tasks.close-hook';

/** Name of the interval in Nest's SchedulerRegistry. */
const SUBAGENT_CLOSE_RECOVERY_JOB = 'subagent-close-recovery';

/**
 * Every JOURNAL_LEASE_MS (as the other recoveries of a process that died), closes the child sessions a parent's close
 * left open above a pending approval, so no approval of a closed tree waits in the review queue.
 */
@Injectable()
export class SubagentCloseRecoveryJob extends IntervalJob {
  constructor(
    private readonly closeHook: SubagentTasksCloseHook,
    scheduler: SchedulerRegistry,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    super(scheduler, SUBAGENT_CLOSE_RECOVERY_JOB, config.journalLeaseMs);
  }

  protected round(): Promise<unknown> {
    return this.closeHook.closeAbandonedAboveApprovals();
  }
}
