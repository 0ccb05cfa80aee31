import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { ToolRegistryRepository } from '@app/modules/tool-registry/tool-registry.repository';
import { ToolSchemaCompiler } from '@app/modules/tool-registry/tool-schema.compiler';
import { ToolChecklistService } from '@app/modules/tool-registry/checklist/tool-checklist.service';
import { McpServiceRepository } from './mcp-service.repository';
import { McpServiceLister, McpServiceUnreachableError, type McpToolListing } from './mcp-service.lister';
import { McpServiceHealthRecorder } from './mcp-service-health.recorder';
import { McpToolRowsRepository } from './mcp-tool-rows.repository';
import { McpToolSyncWriter } from './mcp-tool-sync.writer';
import { namesWanted, planMcpToolSync, withoutRefusedSteps, type McpToolSyncPlan } from './mcp-tool-sync.plan';
import { mcpToolListHash } from './mcp-tool.checksum';
import { McpSyncLeases, type HeldMcpSyncLease } from './mcp-sync.lease';
import { KeyedSerialQueue, KeyedSingleFlight } from './mcp-sync.single-flight';
import { nacosToolEndpointOf, syncKeyOf, syncLeaseKeyOf } from './mcp-service.refs';
import { toMcpServiceRecord } from './mcp-service.mapper';
import type { McpServiceRecord, McpSyncReport, McpSyncTrigger, McpToolLossyRewrite } from './mcp-service.types';
import { databaseErrorCode } from '@app/database/database-error-code';

/** Re-reads and re-plans after a lost race at most this often before giving up. */
const MAX_REPLANS = 3;

/**
 * Syncs the tools of one MCP service into `ai_tool`: list every tool of a healthy instance, plan, write in
 * one transaction with the config-version bump, record health and the list hash. One sync at a time per
 * service: single-flight per service in this process (callers meanwhile share the one queued run), serial
 * per upstream service (two records of the same Nacos service), and a lease row per service across instances
 * (a sync whose lease another instance holds is reported as skipped).
 */
@Injectable()
export class McpServiceSyncService implements OnModuleDestroy {
  private readonly logger = new Logger(McpServiceSyncService.name);
  private readonly flights = new KeyedSingleFlight<McpSyncReport>();
  private readonly upstream = new KeyedSerialQueue();
  private readonly stopping = new AbortController();

  constructor(
    private readonly services: McpServiceRepository,
    private readonly lister: McpServiceLister,
    private readonly leases: McpSyncLeases,
    private readonly writer: McpToolSyncWriter,
    private readonly registry: ToolRegistryRepository,
    private readonly toolRows: McpToolRowsRepository,
    private readonly schemas: ToolSchemaCompiler,
    private readonly health: McpServiceHealthRecorder,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly checklists: ToolChecklistService,
  ) {}

  /** Syncs the service now (or joins the sync queued behind a running one). Failures to list come back as a report with `error`. */
  sync(serviceId: string, trigger: McpSyncTrigger): Promise<McpSyncReport> {
    if (this.stopping.signal.aborted)
      return Promise.reject(new Error('The gateway is shutting down; no MCP sync starts now.'));
    return this.flights.run(serviceId, async () => {
      const row = await this.services.findById(serviceId);
      if (!row) throw new Error(`MCP service ${serviceId} does not exist.`);
      const service = toMcpServiceRecord(row);
      return this.upstream.run(syncKeyOf(service, this.config), () => this.leased(service, trigger));
    });
  }

  /** Whether a sync of the service runs or is queued in this process. */
  isSyncing(serviceId: string): boolean {
    return this.flights.busy(serviceId);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping.abort(new Error('shutting down'));
    await this.flights.idle();
  }

  private async leased(service: McpServiceRecord, trigger: McpSyncTrigger): Promise<McpSyncReport> {
    const started = performance.now();
    const key = syncLeaseKeyOf(service);
    const attempt = await this.leases.acquire(key);
    if (!attempt.held) {
      this.logger.debug(
        `Sync of MCP service ${service.name} (${trigger}) skipped: ${attempt.owner} holds the lease of ${key}`,
      );
      return skippedReport(trigger, `another gateway instance (${attempt.owner}) is syncing ${key} now`, started);
    }
    try {
      return await this.underLease(service, attempt.held, trigger, started);
    } finally {
      await attempt.held.release();
    }
  }

  private async underLease(
    initial: McpServiceRecord,
    lease: HeldMcpSyncLease,
    trigger: McpSyncTrigger,
    started: number,
  ): Promise<McpSyncReport> {
    let service = initial;
    let listed = await this.listOrReport(service, trigger, started);
    if ('report' in listed) return listed.report;
    let listing = listed.listing;
    for (let round = 0; ; round++) {
      // An admin may have changed or deleted the service since it was read (on another instance too): its tools
      // follow what it is now, listed from where it is now, never the record this sync started from.
      const row = await this.services.findById(service.id);
      if (!row) return skippedReport(trigger, deletedReason(service), started);
      const current = toMcpServiceRecord(row);
      if (reachOf(current) !== reachOf(service)) {
        if (round >= MAX_REPLANS)
          throw new Error(`MCP service ${service.name} kept being changed while being synced; try again.`);
        service = current;
        listed = await this.listOrReport(service, trigger, started);
        if ('report' in listed) return listed.report;
        listing = listed.listing;
        continue;
      }
      service = current;
      const planned = await this.plan(service, listing);
      const { outcome, failed } = await this.writer.apply(planned, lease, service);
      for (const f of failed) {
        this.logger.warn(
          `Sync of MCP service ${service.name}: tool ${JSON.stringify(f.step.row.remoteName)} was left out, the database refused it: ${databaseErrorCode(f.error)}`,
        );
      }
      const plan = withoutRefusedSteps(planned, failed);
      if (outcome === 'lease-lost')
        return skippedReport(
          trigger,
          `the sync lease of ${lease.key} expired and was taken over; nothing was written`,
          started,
        );
      if (outcome === 'service-gone') return skippedReport(trigger, deletedReason(service), started);
      if (outcome === 'written') {
        const report = { ...reportOf(plan, listing, trigger, started), lossyRewrites: this.lossyRewrites(listing) };
        await this.health.recordSyncSuccess(service, report);
        if (plan.steps.length || plan.collisions.length || plan.rejected.length) {
          this.logger.log(
            `MCP service ${service.name} (${trigger}): ${report.added} added, ${report.updated} updated, ${report.disabled} disabled, ${report.unchanged} unchanged, ${report.collisions.length} collision(s), ${report.rejected.length} rejected`,
          );
        }
        if (report.lossyRewrites.length > 0) {
          this.logger.log(
            `MCP service ${service.name}: ${report.lossyRewrites.length} tool(s) needed lossy schema rewriting for some model format: ${report.lossyRewrites.map((r) => r.remoteName).join(', ')} (see their checklist)`,
          );
        }
        return report;
      }
      if (round >= MAX_REPLANS)
        throw new Error(`The tools of MCP service ${service.name} kept changing while being synced; try again.`);
    }
  }

  /** The service's tools, or the report of a sync in which no instance answered (recorded as its health). */
  private async listOrReport(
    service: McpServiceRecord,
    trigger: McpSyncTrigger,
    started: number,
  ): Promise<{ listing: McpToolListing } | { report: McpSyncReport }> {
    try {
      return { listing: await this.lister.list(service, this.stopping.signal) };
    } catch (err) {
      // At shutdown the pool and the Nacos client close under a running sync: that says nothing about the service.
      if (!(err instanceof McpServiceUnreachableError) || this.stopping.signal.aborted) throw err;
      const report = { ...emptyReport(trigger, started), error: err.message };
      await this.health.recordSyncFailure(service, err.message, report);
      this.logger.warn(`Sync of MCP service ${service.name} (${trigger}) failed: ${err.message}`);
      return { report };
    }
  }

  /** Of the listed tools with a name and a schema object (a server may list anything: see McpConnection.listTools). */
  private lossyRewrites(listing: McpToolListing): McpToolLossyRewrite[] {
    return listing.tools
      .filter((t) => typeof t.name === 'string' && isJsonObject(t.inputSchema))
      .map((t) => ({
        remoteName: t.name,
        rewrites: this.checklists.lossyRewrites({
          name: t.name,
          description: t.description ?? '',
          parameters: t.inputSchema,
        }),
      }))
      .filter((r) => r.rewrites.length > 0);
  }

  private async plan(service: McpServiceRecord, listing: McpToolListing): Promise<McpToolSyncPlan> {
    const rows = await this.registry.findByMcpService(service.id);
    const nameHolders = await this.toolRows.findNameHolders(
      namesWanted(service, listing.tools, rows),
      service.tenantId,
    );
    const holderServices = nameHolders.flatMap((h) => (h.mcpServiceId ? [h.mcpServiceId] : []));
    const live = await this.services.existingIds(holderServices);
    const target =
      service.kind === 'NACOS'
        ? { serviceType: 'MCP_NACOS' as const, endpoint: nacosToolEndpointOf(service) }
        : { serviceType: 'MCP_REMOTE' as const, endpoint: service.url! };
    return planMcpToolSync({
      service,
      target,
      listed: listing.tools,
      rows,
      nameHolders,
      goneServiceIds: new Set(holderServices.filter((id) => !live.has(id))),
      checkSchema: (schema) => this.schemas.checkDefinition(schema),
      now: Date.now(),
      newId: randomUUID,
    });
  }
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function deletedReason(service: McpServiceRecord): string {
  return `MCP service ${service.name} was deleted while it was being synced; nothing was written`;
}

/** Where and how the service's server is reached: a sync that listed another place or way must list again. */
function reachOf(service: McpServiceRecord): string {
  return JSON.stringify([service.url, service.transport, service.path, service.headers]);
}

function emptyReport(trigger: McpSyncTrigger, started: number): McpSyncReport {
  const finishedAt = new Date().toISOString();
  return {
    added: 0,
    updated: 0,
    disabled: 0,
    unchanged: 0,
    collisions: [],
    rejected: [],
    skipped: false,
    trigger,
    tools: { added: [], updated: [], disabled: [] },
    finishedAt,
    durationMs: Math.round(performance.now() - started),
  };
}

function skippedReport(trigger: McpSyncTrigger, reason: string, started: number): McpSyncReport {
  return { ...emptyReport(trigger, started), skipped: true, skippedReason: reason };
}

function reportOf(
  plan: McpToolSyncPlan,
  listing: McpToolListing,
  trigger: McpSyncTrigger,
  started: number,
): McpSyncReport {
  return {
    ...emptyReport(trigger, started),
    added: plan.added.length,
    updated: plan.updated.length,
    disabled: plan.disabled.length,
    unchanged: plan.unchanged.length,
    collisions: plan.collisions,
    rejected: plan.rejected,
    tools: { added: plan.added, updated: plan.updated, disabled: plan.disabled },
    listedFrom: listing.endpoint.url,
    listHash: mcpToolListHash(listing.tools),
  };
}
