import {
  GatewayMetrics,
  MAX_TENANT_TOOL_LABELS,
  MAX_TOOL_LABELS,
  MAX_TOOL_LABELS_PER_TENANT,
  OTHER_TOOL_LABEL,
} from './gateway-metrics.service';
import type { ToolCallResult } from '@app/modules/executors/call-path/tool-call.types';

/** A platform tool (tenantId null) or a tenant's, as the call path passes it. */
const tool = (name: string, tenantId: string | null = null) => ({ name, tenantId, serviceType: 'HTTP' as const });

async function toolSeries(metrics: GatewayMetrics) {
  return (await metrics.registry.getSingleMetric('gateway_tool_calls_total')!.get()).values;
}

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
      for (let i = 0; i <= MAX_TOOL_LABELS; i++) metrics.recordToolCall(tool(`tool_${i}`), ok);
      metrics.recordToolCall(tool('tool_0'), ok);
      const series = await toolSeries(metrics);
      expect(series).toHaveLength(MAX_TOOL_LABELS + 1);
      expect(series.find((s) => s.labels.tool === 'tool_0')?.value).toBe(2);
      expect(series.find((s) => s.labels.tool === OTHER_TOOL_LABEL)).toMatchObject({
        value: 1,
        labels: { status: 'COMPLETED', error_class: 'none' },
      });
    });

    it(`lets no tenant take more than ${MAX_TOOL_LABELS_PER_TENANT} labels, nor all tenants the platform's share`, async () => {
      const metrics = new GatewayMetrics();
      for (let i = 0; i < 1000; i++) metrics.recordToolCall(tool(`greedy_${i}`, 'greedy'), ok);
      metrics.recordToolCall(tool('lookup', 'modest'), ok);
      let labels = new Set((await toolSeries(metrics)).map((s) => s.labels.tool));
      expect([...labels].filter((l) => String(l).startsWith('greedy_'))).toHaveLength(MAX_TOOL_LABELS_PER_TENANT);
      expect(labels).toContain('lookup');
      expect(labels).toContain(OTHER_TOOL_LABEL);
      // Many tenants together stop at their share; the platform's tools still get labels after that.
      for (let t = 0; t < 20; t++)
        for (let i = 0; i < MAX_TOOL_LABELS_PER_TENANT; i++)
          metrics.recordToolCall(tool(`t${t}_${i}`, `tenant_${t}`), ok);
      metrics.recordToolCall(tool('platform_search'), ok);
      labels = new Set((await toolSeries(metrics)).map((s) => s.labels.tool));
      expect(labels.size - 1).toBe(MAX_TENANT_TOOL_LABELS + 1); // tenants' labels, the platform's one, and _other
      expect(labels).toContain('platform_search');
      // A name that has a label keeps it for every tenant's tool of that name.
      metrics.recordToolCall(tool('lookup', 'greedy'), ok);
      expect((await toolSeries(metrics)).find((s) => s.labels.tool === 'lookup')?.value).toBe(2);
    });

    it('observes the duration in seconds by service type and status', async () => {
      const metrics = new GatewayMetrics();
      metrics.recordToolCall(
        { name: 't', tenantId: null, serviceType: 'MCP_REMOTE' },
        { ...ok, status: 'FAILED', errorClass: 'TIMEOUT', durationMs: 1500 },
      );
      const text = await metrics.scrape();
      expect(text).toContain('gateway_tool_call_duration_seconds_sum{service_type="MCP_REMOTE",status="FAILED"} 1.5');
      expect(text).toContain('gateway_tool_calls_total{tool="t",status="FAILED",error_class="TIMEOUT"} 1');
    });
  });
});
