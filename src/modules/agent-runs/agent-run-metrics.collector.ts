import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Gauge } from 'prom-client';
import { GatewayMetrics } from '@app/modules/metrics/gateway-metrics.service';
import { ACTIVE_RUN_STATUSES } from './agent-runs.types';
import type { TaskStatus } from './subagents/agent-tasks.types';

/** The statuses counted at each scrape: live runs only, read through the status index (see the class). */
const LIVE = ACTIVE_RUN_STATUSES.map((s) => `'${s}'`).join(', ');

/** A live run `r` of session `s` as `toRunView` shows it (QUEUED kept apart: the queue's depth). */
const SHOWN_RUN_STATUS = `CASE
  WHEN r.status NOT IN ('INTERRUPTED', 'PAUSED') THEN r.status
  WHEN s.status <> 'INTERRUPTED' THEN 'RUNNING'
  WHEN EXISTS (SELECT 1 FROM hitl_request h WHERE h.session_id = r.session_id AND h.status = 'PENDING'
                AND h.request_type = 'CHECKPOINT_PAUSE') THEN 'PAUSED'
  WHEN EXISTS (SELECT 1 FROM hitl_request h WHERE h.session_id = r.session_id AND h.status = 'PENDING')
    THEN 'INTERRUPTED'
  ELSE r.status END`;

/** The task of a live child run `r` as `taskStatusOf` shows it. */
const SHOWN_TASK_STATUS = "CASE WHEN r.status = 'PAUSED' THEN 'INTERRUPTED' ELSE r.status END";
const LIVE_TASK_STATUSES: readonly TaskStatus[] = ['QUEUED', 'RUNNING', 'INTERRUPTED'];

/**
 * `gateway_agent_runs{status}` and `gateway_agent_tasks{status}`: live runs of the agent loop (QUEUED, RUNNING,
 * INTERRUPTED, PAUSED) and the sub-agent tasks whose child run is live, read from the database when Prometheus
 * scrapes, through the status index: a scrape grows with the live runs only (counting every status read all runs
 * ever kept, at each scrape). Stopped runs are counted as they stop (`gateway_agent_runs_stopped_total`).
 * Database-wide values: aggregate instances with `max`, not `sum`.
 *
 * A run waiting for a human counts as `GET .../runs/{runId}` shows it (`toRunView`): by the session's pending request
 * (PAUSED for a CHECKPOINT_PAUSE, INTERRUPTED for any other: the resume of a pause may stop at a call needing
 * approval, the run still stored PAUSED), RUNNING once decided. A task counts as CHECK_TASK_STATUS shows it
 * (`taskStatusOf`: a paused child is INTERRUPTED).
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
      help: "Live runs of the gateway's own agent loop per status as the API shows it (QUEUED apart; all tenants); stopped ones: gateway_agent_runs_stopped_total.",
      labelNames: ['status'] as const,
      registers: [metrics.registry],
      async collect() {
        const counts = await countBy(
          `SELECT shown AS status, COUNT(*) AS n FROM (
             SELECT ${SHOWN_RUN_STATUS} AS shown FROM agent_run r
               JOIN agent_session s ON s.id = r.session_id
              WHERE r.status IN (${LIVE})) runs
           GROUP BY shown`,
        ).catch(warn);
        if (counts) for (const s of ACTIVE_RUN_STATUSES) this.labels(s).set(counts.get(s) ?? 0);
      },
    });
    new Gauge({
      name: 'gateway_agent_tasks',
      help: 'Sub-agent tasks whose child run is live, per task status as CHECK_TASK_STATUS shows it (all tenants).',
      labelNames: ['status'] as const,
      registers: [metrics.registry],
      async collect() {
        const counts = await countBy(
          `SELECT shown AS status, COUNT(*) AS n FROM (
             SELECT ${SHOWN_TASK_STATUS} AS shown FROM agent_run r
               JOIN agent_task t ON t.child_session_id = r.session_id AND t.child_run_id = r.id
              WHERE r.status IN (${LIVE})) tasks
           GROUP BY shown`,
        ).catch(warn);
        if (counts) for (const s of LIVE_TASK_STATUSES) this.labels(s).set(counts.get(s) ?? 0);
      },
    });
  }
}
