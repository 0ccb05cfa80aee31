import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { McpClientPool } from '@app/modules/executors/mcp/mcp-client.pool';
import { mcpEndpointOf } from './nacos/nacos-instance-endpoint';
import { NACOS_NAMING, type NacosInstance, type NacosNamingPort } from './nacos/nacos-naming.adapter';
import { NacosInstanceCache } from './nacos/nacos-instance.cache';
import { McpServiceSyncService } from './mcp-service-sync.service';
import { endpointDefaultsOf, nacosKeyOf, nacosRefOf } from './mcp-service.refs';
import { refusedNamespaceReason } from './mcp-service-namespace.rules';
import type { McpServiceRecord, McpSyncTrigger } from './mcp-service.types';

interface Watch {
  service: McpServiceRecord;
  stopNacos?: () => void;
  /** `notifications/tools/list_changed` listeners by endpoint URL. */
  listChanged: Map<string, () => void>;
  /** The instance set last seen (NACOS): a push that repeats it starts no sync. */
  instances?: string;
  debounce?: NodeJS.Timeout;
}

/**
 * Turns upstream events into syncs. NACOS services: the subscription's instance lists (UDP push, or the
 * client's poll) feed the instance cache, and a changed set starts ONE sync after MCP_SYNC_DEBOUNCE_MS,
 * however many changes arrive within it. Every service: `notifications/tools/list_changed` on the pooled
 * session of any of its endpoints starts a sync the same way, debounced: a server that never stops sending it
 * gets one sync per window, not one after another for as long as it sends (each writes the service's row).
 */
@Injectable()
export class McpServiceWatcher implements OnModuleDestroy {
  private readonly logger = new Logger(McpServiceWatcher.name);
  private readonly watches = new Map<string, Watch>();
  private stopped = false;

  constructor(
    private readonly sync: McpServiceSyncService,
    private readonly pool: McpClientPool,
    private readonly instances: NacosInstanceCache,
    @Inject(NACOS_NAMING) private readonly naming: NacosNamingPort,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** Starts watching a service (no-op when already watched). A NACOS instance set already known (from the sync that just ran) starts no sync. */
  watch(service: McpServiceRecord): void {
    const current = this.watches.get(service.id);
    // A URL changed by PATCH (possibly on another instance) is followed from the next round on.
    if (current && current.service.url !== service.url) this.unwatch(service.id);
    if (this.stopped || this.watches.has(service.id)) return;
    const watch: Watch = { service, listChanged: new Map() };
    this.watches.set(service.id, watch);
    if (service.kind === 'STATIC') {
      this.followListChanged(watch, [service.url!]);
      return;
    }
    // A namespace its tenant may no longer read is not subscribed to: its syncs and health checks report why.
    if (refusedNamespaceReason(service, this.config)) return;
    const ref = nacosRefOf(service, this.config);
    const known = this.instances.get(nacosKeyOf(ref));
    if (known) this.onInstances(watch, known, false);
    watch.stopNacos = this.naming.subscribe(ref, (list) => this.onInstances(watch, list, true));
  }

  /** Stops watching a service (deleted, or re-watched after a change of its URL). */
  unwatch(serviceId: string): void {
    const watch = this.watches.get(serviceId);
    if (!watch) return;
    this.watches.delete(serviceId);
    clearTimeout(watch.debounce);
    watch.stopNacos?.();
    for (const stop of watch.listChanged.values()) stop();
  }

  /** Stops watching every service not in `ids` (deleted, possibly on another instance); returns those services. */
  retainOnly(ids: ReadonlySet<string>): McpServiceRecord[] {
    const unwatched: McpServiceRecord[] = [];
    for (const [id, { service }] of [...this.watches]) {
      if (ids.has(id)) continue;
      this.unwatch(id);
      unwatched.push(service);
    }
    return unwatched;
  }

  isWatched(serviceId: string): boolean {
    return this.watches.has(serviceId);
  }

  /** Whether a watched NACOS service reads the Nacos service of `key` (`nacosKeyOf`). */
  watchesNacosKey(key: string): boolean {
    for (const { service } of this.watches.values())
      if (service.kind === 'NACOS' && nacosKeyOf(nacosRefOf(service, this.config)) === key) return true;
    return false;
  }

  onModuleDestroy(): void {
    this.stopped = true;
    for (const watch of this.watches.values()) {
      clearTimeout(watch.debounce);
      watch.stopNacos?.();
      for (const stop of watch.listChanged.values()) stop();
    }
    this.watches.clear();
  }

  private onInstances(watch: Watch, list: NacosInstance[], fromPush: boolean): void {
    if (this.stopped) return;
    const { service } = watch;
    this.instances.set(nacosKeyOf(nacosRefOf(service, this.config)), list);
    const defaults = endpointDefaultsOf(service, this.config);
    const urls = list.flatMap((instance) => {
      try {
        return [mcpEndpointOf(instance, defaults).url];
      } catch {
        return [];
      }
    });
    this.followListChanged(watch, urls);
    const fingerprint = NacosInstanceCache.fingerprint(list);
    if (fingerprint === watch.instances) return;
    // The first list of a service watched since start-up (no sync has seen its instances yet) is its start-up sync.
    const trigger: McpSyncTrigger = watch.instances === undefined ? 'startup' : 'instances-changed';
    watch.instances = fingerprint;
    if (fromPush) this.debounced(watch, trigger);
  }

  /** Listens on exactly `urls` (the service's current endpoints). */
  private followListChanged(watch: Watch, urls: string[]): void {
    const wanted = new Set(urls);
    for (const [url, stop] of watch.listChanged) {
      if (wanted.has(url)) continue;
      stop();
      watch.listChanged.delete(url);
    }
    for (const url of wanted) {
      if (!watch.listChanged.has(url))
        watch.listChanged.set(
          url,
          this.pool.onToolsListChanged(url, () => this.debounced(watch, 'tools-list-changed')),
        );
    }
  }

  private debounced(watch: Watch, trigger: McpSyncTrigger): void {
    if (watch.debounce) return;
    watch.debounce = setTimeout(() => {
      watch.debounce = undefined;
      this.now(watch, trigger);
    }, this.config.mcp.syncDebounceMs);
  }

  private now(watch: Watch, trigger: McpSyncTrigger): void {
    if (this.stopped) return;
    this.sync.sync(watch.service.id, trigger).catch((err: unknown) => {
      if (!this.stopped)
        this.logger.warn(`Sync of MCP service ${watch.service.name} (${trigger}) failed: ${(err as Error).message}`);
    });
  }
}
