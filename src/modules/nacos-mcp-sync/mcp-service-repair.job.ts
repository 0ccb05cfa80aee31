import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { McpServiceRepairService } from './mcp-service-repair.service';

/** Name of the interval in Nest's SchedulerRegistry. */
export const MCP_REPAIR_JOB = 'mcp-service-repair';

/**
 * The scheduled MCP health check and repair, every MCP_HEALTH_INTERVAL_MS; off when MCP_REPAIR_ENABLED=false.
 * The interval is registered with the SchedulerRegistry at bootstrap (its period comes from the config,
 * which `@Interval` cannot read), so it is listed and stopped with the other scheduled jobs.
 */
@Injectable()
export class McpServiceRepairJob implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(McpServiceRepairJob.name);

  constructor(
    private readonly repair: McpServiceRepairService,
    private readonly scheduler: SchedulerRegistry,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.mcp.repairEnabled) return;
    this.scheduler.addInterval(MCP_REPAIR_JOB, setInterval(() => void this.run(), this.config.mcp.healthIntervalMs));
  }

  async run(): Promise<void> {
    await this.repair.repairAll().catch((err: unknown) => this.logger.error(`MCP repair round failed: ${(err as Error).message}`));
  }

  onModuleDestroy(): void {
    if (this.scheduler.doesExist('interval', MCP_REPAIR_JOB)) this.scheduler.deleteInterval(MCP_REPAIR_JOB);
  }
}
