import { Inject, Injectable } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { IntervalJob } from '@app/common/scheduling/interval.job';
import { SessionEventOutboxRecovery } from './session-event-outbox.recovery';

/** Name of the interval in Nest's SchedulerRegistry. */
const SESSION_EVENT_OUTBOX_JOB = 'session-event-outbox-recovery';

/** Writes abandoned kept events every JOURNAL_LEASE_MS (the time after which their process counts as dead). */
@Injectable()
export class SessionEventOutboxJob extends IntervalJob {
  constructor(
    private readonly recovery: SessionEventOutboxRecovery,
    scheduler: SchedulerRegistry,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    super(scheduler, SESSION_EVENT_OUTBOX_JOB, config.journalLeaseMs);
  }

  protected round(): Promise<unknown> {
    return this.recovery.writeAbandoned();
  }
}
