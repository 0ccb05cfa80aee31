import { Controller, Get, Header, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProduces, ApiResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { Public } from '@app/common/auth/auth.decorators';
import { ErrorResponseDto } from '@app/common/dto/error-response.dto';
import { GatewayMetrics } from './gateway-metrics.service';
import { MetricsTokenGuard } from './metrics-token.guard';

/** The Prometheus content type of the text exposition format (prom-client's default registry type). */
const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

@ApiTags('operations')
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: GatewayMetrics) {}

  @Get()
  @ApiOperation({ summary: 'Prometheus metrics' })
  @Public()
  @UseGuards(MetricsTokenGuard)
  @Header('Content-Type', PROMETHEUS_TEXT)
  @ApiBearerAuth()
  @ApiProduces('text/plain')
  @ApiOkResponse({
    description:
      'Prometheus text: gateway_tool_calls_total, gateway_tool_call_duration_seconds, gateway_act_duration_seconds, gateway_journal_entries, gateway_hitl_requests_pending, gateway_mcp_service_up, gateway_agent_runs, gateway_agent_tasks, gateway_agent_runs_stopped_total, gateway_session_event_outbox_given_up_total, gateway_auth_failure_refusals_total, process metrics',
  })
  @ApiResponse({
    status: 401,
    description: 'UNAUTHENTICATED: METRICS_TOKEN is set and the request does not carry it',
    type: ErrorResponseDto,
  })
  scrape(): Promise<string> {
    return this.metrics.scrape();
  }
}
