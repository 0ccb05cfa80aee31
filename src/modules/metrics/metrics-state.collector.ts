import { Injectable, Logger } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { GatewayMetrics } from './gateway-metrics.service';
import { MetricsStateQuery } from './metrics-state.query';

/**
 * Gauges of the shared state, read from the database when Prometheus scrapes (never on the request path):
 * journal entries still STARTED, pending HITL requests, MCP service health. Every instance reports the same
 * database-wide values; aggregate them with `max`, not `sum`. A failed read keeps the last values and logs a
 * warning (the scrape still answers).
 */
@Injectable()
export class MetricsStateCollector {
  private readonly logger = new Logger(MetricsStateCollector.name);

  constructor(metrics: GatewayMetrics, query: MetricsStateQuery) {
    const registers = [metrics.registry];
    const guarded = this.guarded.bind(this);
    new Gauge({
      name: 'gateway_journal_entries',
      help: 'Tool call journal entries per state; only STARTED (running, or abandoned until recovered) is read, through the index of open entries, so a scrape costs the same however large the journal is. Finished calls: gateway_tool_calls_total.',
      labelNames: ['state'] as const,
      registers,
      async collect() {
        await guarded('journal states', async () => {
          this.labels('STARTED').set(await query.startedJournalEntries());
        });
      },
    });
    new Gauge({
      name: 'gateway_hitl_requests_pending',
      help: 'Requests for a human decision that nobody has decided yet (all tenants).',
      registers,
      async collect() {
        await guarded('pending HITL requests', async () => this.set(await query.pendingHitlRequests()));
      },
    });
    new Gauge({
      name: 'gateway_mcp_service_up',
      help: 'Health of each registered MCP service as its last check recorded: 1 UP, 0 DOWN (services not checked yet are absent). scope is the tenant id, or * for platform services.',
      labelNames: ['service', 'scope'] as const,
      registers,
      async collect() {
        await guarded('MCP service health', async () => {
          const rows = await query.mcpServiceHealth();
          this.reset();
          for (const r of rows) if (r.health !== 'UNKNOWN') this.labels(r.name, r.scope).set(r.health === 'UP' ? 1 : 0);
        });
      },
    });
  }

  private async guarded(what: string, read: () => Promise<void>): Promise<void> {
    try {
      await read();
    } catch (err) {
      this.logger.warn(`Metrics: could not read ${what}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
