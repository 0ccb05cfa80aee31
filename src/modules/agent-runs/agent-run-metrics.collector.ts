import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Gauge } from 'prom-client';
import { GatewayMetrics } from '@app/modules/metrics/gateway-metrics.service';
import { ACTIVE_RUN_STATUSES } from './agent-runs.types';

/** The statuses counted at each scrape: live runs only, read through the status index (see the class). */
const LIVE = ACTIVE_RUN_STATUSES.map((s) => `'${s}'`).join(', ');

/**
 * `gateway_agent_runs{status}` and `gateway_agent_tasks{status}`: live runs of the agent loop (QUEUED, RUNNING,
 * INTERRUPTED, PAUSED) and the sub-agent tasks whose child run is live, read from the database when Prometheus
 * scrapes, through the status index: a scrape grows with the live runs only (counting every status read all runs
 * ever kept, at each scrape). Stopped runs are counted as they stop (`gateway_agent_runs_stopped_total`).
 * Database-wide values: aggregate instances with `max`, not `sum`.
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
      help: "Live runs of the gateway's own agent loop per status (all tenants); stopped ones: gateway_agent_runs_stopped_total.",
      labelNames: ['status'] as const,
      registers: [metrics.registry],
      async collect() {
        const counts = await countBy(
          `SELECT status, COUNT(*) AS n FROM agent_run WHERE status IN (${LIVE}) GROUP BY status`,
        ).catch(warn);
        if (counts) for (const s of ACTIVE_RUN_STATUSES) this.labels(s).set(counts.get(s) ?? 0);
      },
    });
    new Gauge({
      name: 'gateway_agent_tasks',
      help: 'Sub-agent tasks whose child run is live, per its status (all tenants).',
      labelNames: ['status'] as const,
      registers: [metrics.registry],
      async collect() {
        const counts = await countBy(
          `SELECT r.status AS status, COUNT(*) AS n FROM agent_run r
             JOIN agent_task t ON t.child_session_id = r.session_id AND t.child_run_id = r.id
            WHERE r.status IN (${LIVE}) GROUP BY r.status`,
        ).catch(warn);
        if (counts) for (const s of ACTIVE_RUN_STATUSES) this.labels(s).set(counts.get(s) ?? 0);
      },
    });
  }
}
