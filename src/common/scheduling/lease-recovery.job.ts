import { Inject, Injectable, mixin, type Type } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { IntervalJob } from './interval.job';

/**
 * A recovery job: one round of `round(recovery)` every JOURNAL_LEASE_MS, the time after which a process that held the
 * work counts as dead. A class per call (Nest's mixin pattern, as `AuthGuard('jwt')`), to extend and name, as
 * `class AbandonedDecisionJob extends LeaseRecoveryJob(name, AbandonedDecisionRecovery, (r) => r.carryOut()) {}`;
 * `jobName` names the interval in Nest's SchedulerRegistry.
 */
export function LeaseRecoveryJob<R>(jobName: string, recovery: Type<R>, round: (recovery: R) => Promise<unknown>) {
  @Injectable()
  class Job extends IntervalJob {
    constructor(
      @Inject(recovery) private readonly target: R,
      scheduler: SchedulerRegistry,
      @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    ) {
      super(scheduler, jobName, config.journalLeaseMs);
    }

    protected round(): Promise<unknown> {
      return round(this.target);
    }
  }
  return mixin(Job) as typeof Job;
}
