import { Module } from '@nestjs/common';
import { GatewayMetrics } from './gateway-metrics.service';
import { MetricsStateQuery } from './metrics-state.query';
import { MetricsStateCollector } from './metrics-state.collector';
import { MetricsController } from './metrics.controller';

/**
 * GET /metrics (Prometheus). The modules whose services record into {@link GatewayMetrics} (executors: the call
 * path; loop-acting: `act`) import it, so each of them also works in a test module of its own; it imports no
 * feature module.
 */
@Module({
  controllers: [MetricsController],
  providers: [GatewayMetrics, MetricsStateQuery, MetricsStateCollector],
  exports: [GatewayMetrics],
})
export class MetricsModule {}
