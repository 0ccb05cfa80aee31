import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { RetentionService } from './retention.service';

/** Name of the interval in Nest's SchedulerRegistry. */
export const RETENTION_JOB = 'retention';

/** The scheduled retention run, every RETENTION_INTERVAL_MS; off when RETENTION_ENABLED=false. */
@Injectable()
export class RetentionJob implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(RetentionJob.name);

  constructor(
    private readonly retention: RetentionService,
    private readonly scheduler: SchedulerRegistry,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.retention.enabled) return;
    this.scheduler.addInterval(RETENTION_JOB, setInterval(() => void this.run(), this.config.retention.intervalMs));
  }

  async run(): Promise<void> {
    await this.retention.purge().catch((err: unknown) => this.logger.error(`Retention run failed: ${(err as Error).message}`));
  }

  onModuleDestroy(): void {
    if (this.scheduler.doesExist('interval', RETENTION_JOB)) this.scheduler.deleteInterval(RETENTION_JOB);
  }
}
