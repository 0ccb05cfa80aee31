import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { McpClientPool } from '@app/modules/executors/mcp/mcp-client.pool';
import { McpServiceDirectory } from './mcp-service.directory';
import { McpServiceHealthRecorder } from './mcp-service-health.recorder';
import { McpServiceWatcher } from './mcp-service.watcher';
import { NacosInstanceCache } from './nacos/nacos-instance.cache';
import { mcpEndpointOf } from './nacos/nacos-instance-endpoint';
import { endpointDefaultsOf, nacosKeyOf, nacosRefOf } from './mcp-service.refs';
import type { McpServiceEntity } from './mcp-service.entity';
import type { McpServiceRecord } from './mcp-service.types';
import { toMcpServiceRecord } from './mcp-service.mapper';

/**
 * What this instance holds of one MCP service besides its row (its directory entry, its watch, its pooled sessions,
 * its health and, NACOS, the instances last seen), let go when the service changes or is deleted: else a changed
 * service kept sessions with old headers, and a deleted one its entries, until restart.
 */
@Injectable()
export class McpServiceMemory {
  constructor(
    private readonly directory: McpServiceDirectory,
    private readonly watcher: McpServiceWatcher,
    private readonly health: McpServiceHealthRecorder,
    private readonly pool: McpClientPool,
    private readonly instances: NacosInstanceCache,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** The service `row` (as it was) changed: its watch and sessions go; the next call and sync read it anew. */
  async forgetChanged(row: McpServiceEntity): Promise<void> {
    this.directory.forget(row.id);
    this.watcher.unwatch(row.id);
    await this.closeSessions(row);
  }

  /** The service `row` was deleted: everything of it goes. */
  async forgetDeleted(row: McpServiceEntity): Promise<void> {
    this.health.forget(row.id);
    await this.forgetChanged(row);
    this.forgetInstances(toMcpServiceRecord(row));
  }

  /**
   * Keeps only what belongs to `ids`, the services that exist now: of a service deleted through another instance,
   * this one drops its watch, health, directory entry and (NACOS) instances last seen at its next repair round.
   */
  retainOnly(ids: ReadonlySet<string>): void {
    const unwatched = this.watcher.retainOnly(ids);
    this.health.retainOnly(ids);
    this.directory.retainOnly(ids);
    for (const service of unwatched) this.forgetInstances(service);
  }

  /**
   * Retires the service's pooled sessions (its tenant's, to its URL or, NACOS, to each instance last seen): the next
   * call opens one with what the service is now, and none is left open with old headers or for a deleted service.
   */
  private async closeSessions(row: McpServiceEntity): Promise<void> {
    const service = toMcpServiceRecord(row);
    let urls: string[] = [];
    if (service.kind === 'STATIC') urls = [service.url!];
    else {
      const defaults = endpointDefaultsOf(service, this.config);
      for (const instance of this.instances.get(nacosKeyOf(nacosRefOf(service, this.config))) ?? []) {
        try {
          urls.push(mcpEndpointOf(instance, defaults).url);
        } catch {
          // An instance whose metadata names no usable endpoint has no session.
        }
      }
    }
    await Promise.all([...new Set(urls)].map((url) => this.pool.close(url, row.tenantId)));
  }

  /**
   * Drops the instances last seen of a deleted NACOS service's Nacos service (read by {@link closeSessions} first),
   * unless another record watched here names it: else each one stayed cached until restart. A hand-registered tool
   * calling it reads Nacos again.
   */
  private forgetInstances(service: McpServiceRecord): void {
    if (service.kind !== 'NACOS') return;
    const key = nacosKeyOf(nacosRefOf(service, this.config));
    if (!this.watcher.watchesNacosKey(key)) this.instances.delete(key);
  }
}
