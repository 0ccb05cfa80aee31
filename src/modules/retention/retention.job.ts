import { Inject, Injectable } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { IntervalJob } from '@app/common/scheduling/interval.job';
import { RetentionService } from './retention.service';

/** Name of the interval in Nest's SchedulerRegistry. */
export const RETENTION_JOB = 'retention';

/** The scheduled retention run, every RETENTION_INTERVAL_MS; off when RETENTION_ENABLED=false. */
@Injectable()
export class RetentionJob extends IntervalJob {
  constructor(
    private readonly retention: RetentionService,
    scheduler: SchedulerRegistry,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    super(scheduler, RETENTION_JOB, config.retention.enabled ? config.retention.intervalMs : null);
  }

  protected round(): Promise<unknown> {
    return this.retention.purge();
  }
}
