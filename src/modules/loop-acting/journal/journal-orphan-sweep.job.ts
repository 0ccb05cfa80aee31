import { Inject, Injectable } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { IntervalJob } from '@app/common/scheduling/interval.job';
import { JournalOrphanSweepService } from './journal-orphan-sweep.service';

/** Name of the interval in Nest's SchedulerRegistry. */
const JOURNAL_ORPHAN_SWEEP_JOB = 'journal-orphan-sweep';

/** The dead-owner sweep every JOURNAL_SWEEP_INTERVAL_MS; off when it is 0. */
@Injectable()
export class JournalOrphanSweepJob extends IntervalJob {
  constructor(
    private readonly sweeper: JournalOrphanSweepService,
    scheduler: SchedulerRegistry,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    super(
      scheduler,
      JOURNAL_ORPHAN_SWEEP_JOB,
      config.journalSweepIntervalMs === 0 ? null : config.journalSweepIntervalMs,
    );
  }

  protected round(): Promise<unknown> {
    return this.sweeper.sweep();
  }
}
