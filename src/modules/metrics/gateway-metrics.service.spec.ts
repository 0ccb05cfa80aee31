import { GatewayMetrics, MAX_TOOL_LABELS, OTHER_TOOL_LABEL } from './gateway-metrics.service';
import type { ToolCallResult } from '@app/modules/executors/call-path/tool-call.types';

const ok: ToolCallResult = {
  status: 'COMPLETED',
  content: 'x',
  isError: false,
  attempts: 1,
  durationMs: 12,
  errorClass: null,
  timedOut: false,
};

describe('GatewayMetrics', () => {
  describe('recordToolCall', () => {
    it(`gives the first ${MAX_TOOL_LABELS} tool names their own series and counts later ones as ${OTHER_TOOL_LABEL}`, async () => {
      const metrics = new GatewayMetrics();
      for (let i = 0; i <= MAX_TOOL_LABELS; i++) metrics.recordToolCall(`tool_${i}`, 'HTTP', ok);
      metrics.recordToolCall('tool_0', 'HTTP', ok);
      const series = (await metrics.registry.getSingleMetric('gateway_tool_calls_total')!.get()).values;
      expect(series).toHaveLength(MAX_TOOL_LABELS + 1);
      expect(series.find((s) => s.labels.tool === 'tool_0')?.value).toBe(2);
      expect(series.find((s) => s.labels.tool === OTHER_TOOL_LABEL)).toMatchObject({
        value: 1,
        labels: { status: 'COMPLETED', error_class: 'none' },
      });
    });

    it('observes the duration in seconds by service type and status', async () => {
      const metrics = new GatewayMetrics();
      metrics.recordToolCall('t', 'MCP_REMOTE', { ...ok, status: 'FAILED', errorClass: 'TIMEOUT', durationMs: 1500 });
      const text = await metrics.scrape();
      expect(text).toContain('gateway_tool_call_duration_seconds_sum{service_type="MCP_REMOTE",status="FAILED"} 1.5');
      expect(text).toContain('gateway_tool_calls_total{tool="t",status="FAILED",error_class="TIMEOUT"} 1');
    });
  });
});
