import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Gauge } from 'prom-client';
import { GatewayMetrics } from '@app/modules/metrics/gateway-metrics.service';
import { RUN_STATUSES } from './agent-runs.types';

/**
 * `gateway_agent_runs{status}` and `gateway_agent_tasks{status}`: runs of the agent loop and sub-agent tasks
 * (a task's status is its child run's), read from the database when Prometheus scrapes. Database-wide values:
 * aggregate instances with `max`, not `sum`.
 */
@Injectable()
export class AgentRunMetricsCollector {
  private readonly logger = new Logger(AgentRunMetricsCollector.name);

  constructor(metrics: GatewayMetrics, @InjectDataSource() dataSource: DataSource) {
    const warn = (err: unknown) =>
      this.logger.warn(`Metrics: could not read runs: ${err instanceof Error ? err.message : String(err)}`);
    const countBy = async (sql: string) => {
      const rows: Array<{ status: string; n: number | string }> = await dataSource.query(sql);
      return new Map(rows.map((r) => [r.status, Number(r.n)]));
    };
    new Gauge({
      name: 'gateway_agent_runs',
      help: "Runs of the gateway's own agent loop per status (all tenants).",
      labelNames: ['status'] as const,
      registers: [metrics.registry],
      async collect() {
        const counts = await countBy('SELECT status, COUNT(*) AS n FROM agent_run GROUP BY status').catch(warn);
        if (counts) for (const s of RUN_STATUSES) this.labels(s).set(counts.get(s) ?? 0);
      },
    });
    new Gauge({
      name: 'gateway_agent_tasks',
      help: 'Sub-agent tasks per status of their child run (all tenants).',
      labelNames: ['status'] as const,
      registers: [metrics.registry],
      async collect() {
        const counts = await countBy(
          'SELECT r.status AS status, COUNT(*) AS n FROM agent_task t JOIN agent_run r ON r.id = t.child_run_id GROUP BY r.status',
        ).catch(warn);
        if (counts) for (const s of RUN_STATUSES) this.labels(s).set(counts.get(s) ?? 0);
      },
    });
  }
}
