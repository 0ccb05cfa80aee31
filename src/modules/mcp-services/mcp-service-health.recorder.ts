import { Injectable } from '@nestjs/common';
import { McpServiceHealthRegistry } from '@app/modules/tool-registry/mcp-service-health.registry';
import { McpServiceRepository } from './mcp-service.repository';
import type { McpServiceRecord, McpSyncReport } from './mcp-service.types';

/**
 * Where the health of an MCP service goes: the in-memory registry that the visibility pipeline's
 * DEPENDENCIES layer reads (keyed by the service id, as its tools' `mcpServiceId`), and the service row
 * (`health`, `health_reason`, and after a sync `last_sync_at`, `last_list_hash`, `last_sync_result`).
 */
@Injectable()
export class McpServiceHealthRecorder {
  constructor(
    private readonly registry: McpServiceHealthRegistry,
    private readonly services: McpServiceRepository,
  ) {}

  /** At start-up: services last seen DOWN stay hidden until a check says otherwise. */
  seed(services: readonly McpServiceRecord[]): void {
    for (const s of services) if (s.health === 'DOWN') this.registry.report(s.id, false, s.healthReason ?? undefined);
  }

  /** The service was deleted on this instance: its health goes with it. */
  forget(serviceId: string): void {
    this.registry.forget(serviceId);
  }

  /** Keeps the health of the services in `serviceIds` only (the others were deleted, possibly on another instance). */
  retainOnly(serviceIds: ReadonlySet<string>): void {
    this.registry.retainOnly(serviceIds);
  }

  async recordSyncSuccess(service: McpServiceRecord, report: McpSyncReport): Promise<void> {
    this.registry.report(service.id, true);
    const now = Date.now();
    await this.services.update(service.id, {
      health: 'UP',
      healthReason: null,
      lastSyncAt: Date.parse(report.finishedAt),
      lastListHash: report.listHash ?? null,
      lastSyncResult: report,
      updatedAt: now,
    });
  }

  async recordSyncFailure(service: McpServiceRecord, reason: string, report: McpSyncReport): Promise<void> {
    this.registry.report(service.id, false, reason);
    await this.services.update(service.id, {
      health: 'DOWN',
      healthReason: reason,
      lastSyncResult: report,
      updatedAt: Date.now(),
    });
  }

  /** A health check's verdict; the row is written only when it changes. */
  async recordCheck(service: McpServiceRecord, healthy: boolean, reason?: string): Promise<void> {
    this.registry.report(service.id, healthy, reason);
    const health = healthy ? 'UP' : 'DOWN';
    const healthReason = healthy ? null : (reason ?? null);
    if (service.health === health && service.healthReason === healthReason) return;
    await this.services.update(service.id, { health, healthReason, updatedAt: Date.now() });
  }
}
