import { Inject, Injectable } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { IntervalJob } from '@app/common/scheduling/interval.job';
import { JournalOrphanSweepService } from './journal-orphan-sweep.service';

/** Name of the interval in Nest's SchedulerRegistry. */
const JOURNAL_ORPHAN_SWEEP_JOB = 'journal-orphan-sweep';

/**
 * The dead-owner sweep every JOURNAL_SWEEP_INTERVAL_MS. With 0 it raises no request (the runtime's resubmit does), but
 * still ends, every JOURNAL_LEASE_MS, the calls a dead owner left in closed sessions: nothing else ever can.
 */
@Injectable()
export class JournalOrphanSweepJob extends IntervalJob {
  private readonly raises: boolean;

  constructor(
    private readonly sweeper: JournalOrphanSweepService,
    scheduler: SchedulerRegistry,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    super(scheduler, JOURNAL_ORPHAN_SWEEP_JOB, config.journalSweepIntervalMs || config.journalLeaseMs);
    this.raises = config.journalSweepIntervalMs > 0;
  }

  protected round(): Promise<unknown> {
    return this.raises ? this.sweeper.sweep() : this.sweeper.endAbandoned();
  }
}
