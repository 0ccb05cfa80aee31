import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { JournalOrphanSweepService } from './journal-orphan-sweep.service';

/** Name of the interval in Nest's SchedulerRegistry. */
export const JOURNAL_ORPHAN_SWEEP_JOB = 'journal-orphan-sweep';

/** The dead-owner sweep every JOURNAL_SWEEP_INTERVAL_MS; off when it is 0. */
@Injectable()
export class JournalOrphanSweepJob implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(JournalOrphanSweepJob.name);

  constructor(
    private readonly sweeper: JournalOrphanSweepService,
    private readonly scheduler: SchedulerRegistry,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.journalSweepIntervalMs === 0) return;
    this.scheduler.addInterval(JOURNAL_ORPHAN_SWEEP_JOB, setInterval(() => void this.run(), this.config.journalSweepIntervalMs));
  }

  async run(): Promise<void> {
    await this.sweeper.sweep().catch((err: unknown) => this.logger.error(`Journal dead-owner sweep failed: ${(err as Error).message}`));
  }

  onModuleDestroy(): void {
    if (this.scheduler.doesExist('interval', JOURNAL_ORPHAN_SWEEP_JOB)) this.scheduler.deleteInterval(JOURNAL_ORPHAN_SWEEP_JOB);
  }
}
