import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import type { ToolCallResult } from '@app/modules/executors/call-path/tool-call.types';

/**
 * Distinct tool names that get their own label value; later names share `_other`. Tool names come from the
 * registry (bounded), but tenants may register many: this keeps a scrape and the process's memory bounded.
 */
export const MAX_TOOL_LABELS = 500;
/** Names one tenant's tools may take, so that one tenant registering many tools leaves labels for the others. */
export const MAX_TOOL_LABELS_PER_TENANT = 50;
/** Names all tenants' tools together may take: the rest stays for the platform's own tools. */
export const MAX_TENANT_TOOL_LABELS = 400;
export const OTHER_TOOL_LABEL = '_other';
/** Seconds; calls span sub-millisecond local tools to minute-long remote ones. */
const CALL_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const ACT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** How an `act` request ended: the response status, or ERROR when it answered with an error. */
export type ActOutcome = 'COMPLETED' | 'INTERRUPTED' | 'ERROR';

/**
 * The gateway's Prometheus registry (one per app, so several apps in one process never collide) and the
 * series the hot paths update: counters and histograms with bounded label sets, updated where a call and
 * an `act` finish (in the services, so every HTTP path counts). Gauges read at scrape time are added by
 * {@link MetricsStateCollector}.
 */
@Injectable()
export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly toolCalls = new Counter({
    name: 'gateway_tool_calls_total',
    help: `Tool calls that finished (after retries), by tool (the first ${MAX_TOOL_LABELS} names, ${MAX_TOOL_LABELS_PER_TENANT} per tenant and ${MAX_TENANT_TOOL_LABELS} for all tenants, others count as "${OTHER_TOOL_LABEL}"), status and error class ("none" on success).`,
    labelNames: ['tool', 'status', 'error_class'] as const,
    registers: [this.registry],
  });
  private readonly callDuration = new Histogram({
    name: 'gateway_tool_call_duration_seconds',
    help: 'Duration of tool calls (retries included), by service type and status.',
    labelNames: ['service_type', 'status'] as const,
    buckets: CALL_BUCKETS,
    registers: [this.registry],
  });
  private readonly actDuration = new Histogram({
    name: 'gateway_act_duration_seconds',
    help: 'Duration of an act inside the gateway (POST /api/v1/sessions/{id}/act, and each act of its own agent loop): journal and calls, by outcome.',
    labelNames: ['outcome'] as const,
    buckets: ACT_BUCKETS,
    registers: [this.registry],
  });
  private readonly runsStopped = new Counter({
    name: 'gateway_agent_runs_stopped_total',
    help: "Runs of the gateway's own agent loop that stopped, by the status they stopped in (COMPLETED, FAILED, INTERRUPTED, PAUSED).",
    labelNames: ['status'] as const,
    registers: [this.registry],
  });
  private readonly sessionEventsGivenUp = new Counter({
    name: 'gateway_session_event_outbox_given_up_total',
    help: 'Kept session events the outbox round gave up writing after its bounded attempts, by event type (each stays in session_event_outbox for inspection).',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });
  private readonly authFailureRefusals = new Counter({
    name: 'gateway_auth_failure_refusals_total',
    help: 'Requests answered 429 without their key being looked up: their client address had failed authentication AUTH_FAILURES_PER_MINUTE times within the minute.',
    registers: [this.registry],
  });
  private readonly toolLabels = new Set<string>();
  /** Label values taken by each tenant's tools (the platform's are not counted here). */
  private readonly tenantLabelCounts = new Map<string, number>();
  private tenantLabels = 0;
  /**
   * The series of each (tool, service type, status, error class) seen, bound once: prom-client hashes the
   * label values on every `labels()` call. Bounded like the label values themselves.
   */
  private readonly callSeries = new Map<
    string,
    {
      count: Counter.Internal;
      duration: Histogram.Internal<'service_type' | 'status'>;
    }
  >();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** A run of the agent loop stopped in `status` (its stop was committed). */
  recordRunStopped(status: string): void {
    this.runsStopped.labels(status).inc();
  }

  /** The outbox round gave up on a kept session event of `type` (a contract event type: a bounded label). */
  recordSessionEventGivenUp(type: string): void {
    this.sessionEventsGivenUp.labels(type).inc();
  }

  /** A request from an address refused for its failed authentications was answered 429 (no address: unbounded). */
  recordAuthFailureRefusal(): void {
    this.authFailureRefusals.inc();
  }

  /** One finished call (every entry: act, resume, execute). */
  recordToolCall(
    { name, serviceType, tenantId }: Pick<ToolDescriptor, 'name' | 'serviceType' | 'tenantId'>,
    result: ToolCallResult,
  ): void {
    const tool = this.toolLabel(name, tenantId);
    const errorClass = result.errorClass ?? 'none';
    const key = `${tool}\u0000${serviceType}\u0000${result.status}\u0000${errorClass}`;
    let series = this.callSeries.get(key);
    if (!series) {
      series = {
        count: this.toolCalls.labels(tool, result.status, errorClass),
        duration: this.callDuration.labels(serviceType, result.status),
      };
      this.callSeries.set(key, series);
    }
    series.count.inc();
    series.duration.observe(result.durationMs / 1000);
  }

  /** One `act` request, from its start (a `performance.now()` value). */
  recordAct(startedAt: number, outcome: ActOutcome): void {
    this.actDuration.labels(outcome).observe((performance.now() - startedAt) / 1000);
  }

  /** The text exposition of every series. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  /**
   * The tool's own name once it has a label (tools of several tenants sharing a name share it), else a new label
   * while the budgets allow: {@link MAX_TOOL_LABELS} in all, {@link MAX_TOOL_LABELS_PER_TENANT} per tenant and
   * {@link MAX_TENANT_TOOL_LABELS} for all tenants together. Labels are kept until restart.
   */
  private toolLabel(name: string, tenantId: string | null): string {
    if (this.toolLabels.has(name)) return name;
    if (this.toolLabels.size >= MAX_TOOL_LABELS) return OTHER_TOOL_LABEL;
    if (tenantId !== null) {
      const taken = this.tenantLabelCounts.get(tenantId) ?? 0;
      if (taken >= MAX_TOOL_LABELS_PER_TENANT || this.tenantLabels >= MAX_TENANT_TOOL_LABELS) return OTHER_TOOL_LABEL;
      this.tenantLabelCounts.set(tenantId, taken + 1);
      this.tenantLabels++;
    }
    this.toolLabels.add(name);
    return name;
  }
}
