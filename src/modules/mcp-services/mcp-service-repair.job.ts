import { Inject, Injectable } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { IntervalJob } from '@app/common/scheduling/interval.job';
import { McpServiceRepairService } from './mcp-service-repair.service';

/** Name of the interval in Nest's SchedulerRegistry. */
export const MCP_REPAIR_JOB = 'mcp-service-repair';

/** The scheduled MCP health check and repair, every MCP_HEALTH_INTERVAL_MS; off when MCP_REPAIR_ENABLED=false. */
@Injectable()
export class McpServiceRepairJob extends IntervalJob {
  constructor(
    private readonly repair: McpServiceRepairService,
    scheduler: SchedulerRegistry,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    super(scheduler, MCP_REPAIR_JOB, config.mcp.repairEnabled ? config.mcp.healthIntervalMs : null);
  }

  protected round(): Promise<unknown> {
    return this.repair.repairAll();
  }
}
