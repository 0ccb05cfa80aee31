import { Global, Module } from '@nestjs/common';
import { GatewayMetrics } from './gateway-metrics.service';
import { MetricsStateQuery } from './metrics-state.query';
import { MetricsStateCollector } from './metrics-state.collector';
import { MetricsTokenGuard } from './metrics-token.guard';
import { MetricsController } from './metrics.controller';

/**
 * GET /metrics (Prometheus). Global: the call path and `act` record into {@link GatewayMetrics} without
 * importing this module, and this module imports no feature module.
 */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [GatewayMetrics, MetricsStateQuery, MetricsStateCollector, MetricsTokenGuard],
  exports: [GatewayMetrics],
})
export class MetricsModule {}
