import { Inject, Injectable } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { IntervalJob } from '@app/common/scheduling/interval.job';
import { AbandonedDecisionRecovery } from './abandoned-decision.recovery';

/** Name of the interval in Nest's SchedulerRegistry. */
const ABANDONED_DECISION_JOB = 'abandoned-decision-recovery';

/** Carries out abandoned saved decisions every JOURNAL_LEASE_MS (the time after which their claim counts as dead). */
@Injectable()
export class AbandonedDecisionJob extends IntervalJob {
  constructor(
    private readonly recovery: AbandonedDecisionRecovery,
    scheduler: SchedulerRegistry,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    super(scheduler, ABANDONED_DECISION_JOB, config.journalLeaseMs);
  }

  protected round(): Promise<unknown> {
    return this.recovery.carryOut();
  }
}
