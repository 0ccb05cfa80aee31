import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { McpServiceRepository } from './mcp-service.repository';
import { McpServiceLister, McpServiceUnreachableError } from './mcp-service.lister';
import { McpServiceHealthRecorder } from './mcp-service-health.recorder';
import { McpServiceSyncService } from './mcp-service-sync.service';
import { McpServiceWatcher } from './mcp-service.watcher';
import { McpServiceMemory } from './mcp-service.memory';
import { mcpToolListHash } from './mcp-tool.checksum';
import { refusedNamespaceReason } from './mcp-service-namespace.rules';
import { toMcpServiceRecord } from './mcp-service.mapper';
import type { McpServiceRecord } from './mcp-service.types';

/** Services checked at the same time by one repair round. */
const CHECK_CONCURRENCY = 8;

/** What one repair round did (tests, logs). */
export interface McpRepairRound {
  checked: number;
  down: string[];
  resynced: string[];
}

/**
 * What the scheduled job runs, and what events may have missed: every service is checked (NACOS: healthy
 * instances read from Nacos now, then tools/list on one of them; STATIC: tools/list on the URL), its
 * health goes to the DEPENDENCIES layer and the row, and a service whose tools/list hash differs from the
 * one last synced is synced again. Services registered on another instance start being watched here.
 * At start-up the rows seed the health registry (a service whose namespace its tenant may no longer read is DOWN at
 * once) and every service is watched.
 */
@Injectable()
export class McpServiceRepairService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(McpServiceRepairService.name);
  private round: Promise<McpRepairRound> | null = null;
  private readonly stopping = new AbortController();

  constructor(
    private readonly services: McpServiceRepository,
    private readonly lister: McpServiceLister,
    private readonly health: McpServiceHealthRecorder,
    private readonly sync: McpServiceSyncService,
    private readonly watcher: McpServiceWatcher,
    private readonly memory: McpServiceMemory,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const services = (await this.services.findAll()).map(toMcpServiceRecord);
    this.health.seed(services);
    // Known without asking anyone: a namespace its tenant may no longer read is down from the start, not shown UP
    // (its tools offered) until the first check.
    for (const service of services) {
      const refused = refusedNamespaceReason(service, this.config);
      if (refused) await this.health.recordCheck(service, false, refused);
    }
    for (const service of services) this.watcher.watch(service);
  }

  /** One round over every service; a round still running is joined, never overlapped. */
  repairAll(): Promise<McpRepairRound> {
    this.round ??= this.runRound().finally(() => (this.round = null));
    return this.round;
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping.abort(new Error('shutting down'));
    await this.round?.catch(() => undefined);
  }

  private async runRound(): Promise<McpRepairRound> {
    const services = (await this.services.findAll()).map(toMcpServiceRecord);
    const ids = new Set(services.map((s) => s.id));
    this.memory.retainOnly(ids);
    const result: McpRepairRound = { checked: 0, down: [], resynced: [] };
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < services.length && !this.stopping.signal.aborted) {
        const service = services[next++];
        this.watcher.watch(service);
        await this.check(service, result).catch((err: unknown) => {
          if (!this.stopping.signal.aborted)
            this.logger.warn(`Health check of MCP service ${service.name} failed: ${(err as Error).message}`);
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(CHECK_CONCURRENCY, services.length) }, worker));
    return result;
  }

  private async check(service: McpServiceRecord, result: McpRepairRound): Promise<void> {
    // A sync running here records the health itself, from the same kind of listing.
    if (this.sync.isSyncing(service.id)) return;
    result.checked++;
    let hash: string;
    try {
      // A server that hangs, or pages slowly, must not hold the round past the next interval: half an interval per
      // request, one interval for the whole listing.
      const interval = this.config.mcp.healthIntervalMs;
      const pageMs = Math.max(1000, Math.floor(interval / 2));
      const budget = { pageMs, totalMs: Math.max(pageMs, interval) };
      hash = mcpToolListHash((await this.lister.list(service, this.stopping.signal, budget)).tools);
    } catch (err) {
      if (!(err instanceof McpServiceUnreachableError) || this.stopping.signal.aborted) throw err;
      result.down.push(service.name);
      await this.health.recordCheck(service, false, err.message);
      return;
    }
    await this.health.recordCheck(service, true);
    if (hash === service.lastListHash) return;
    result.resynced.push(service.name);
    await this.sync.sync(service.id, 'repair');
  }
}
