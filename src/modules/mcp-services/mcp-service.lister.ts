import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { McpClientPool } from '@app/modules/executors/mcp/mcp-client.pool';
import { ToolHeadersResolver } from '@app/modules/executors/secrets/tool-headers.resolver';
import { hideSecretValues } from '@app/modules/executors/secrets/tool-header.secrets';
import type { McpEndpoint } from '@app/modules/executors/mcp/mcp-endpoint';
import { mcpEndpointOf } from './nacos/nacos-instance-endpoint';
import { NACOS_NAMING, type NacosNamingPort } from './nacos/nacos-naming.adapter';
import { NacosInstanceCache } from './nacos/nacos-instance.cache';
import { weightedOrder } from './nacos/nacos-instance.order';
import { endpointDefaultsOf, nacosKeyOf, nacosRefOf } from './mcp-service.refs';
import { refusedNamespaceReason } from './mcp-service-namespace.rules';
import type { ListedMcpTool } from './mcp-tool.checksum';
import type { McpServiceRecord } from './mcp-service.types';

/** How long one listing may take: each tools/list page request, and all of them (every page of every instance). */
export interface McpListingBudget {
  pageMs: number;
  totalMs: number;
}

/** A sync's listing: 15 s a page, 60 s in all. */
const SYNC_LISTING_BUDGET: McpListingBudget = { pageMs: 15_000, totalMs: 60_000 };

/** What one instance of a service answered to tools/list (every page). */
export interface McpToolListing {
  tools: ListedMcpTool[];
  endpoint: McpEndpoint;
}

/** No instance of the service answered tools/list; `reason` says why, for the admin and the health row. */
export class McpServiceUnreachableError extends Error {
  override readonly name = 'McpServiceUnreachableError';

  /** The message becomes the service's health reason: cut, as a server's error page may be megabytes long. */
  constructor(message: string) {
    super(cut(message, MAX_REASON_CHARS));
  }
}

/** Most characters of an unreachable service's reason, and of one instance's part of it. */
const MAX_REASON_CHARS = 2000;
const MAX_INSTANCE_PROBLEM_CHARS = 500;

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/**
 * Where a service's MCP server is and what it lists. NACOS: the healthy instances read from Nacos now (also
 * refreshing the instance cache), tried in weighted order until one answers; STATIC: the URL. Every request
 * goes through the pooled session of the endpoint's URL.
 */
@Injectable()
export class McpServiceLister {
  constructor(
    private readonly pool: McpClientPool,
    private readonly headerSecrets: ToolHeadersResolver,
    private readonly instances: NacosInstanceCache,
    @Inject(NACOS_NAMING) private readonly naming: NacosNamingPort,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /**
   * Every tool of the first instance that answers; throws {@link McpServiceUnreachableError} when none does, or
   * when the service's namespace is no longer its tenant's to read (nothing is asked of Nacos then).
   * `budget` bounds each page request and the whole listing (default 15 s and 60 s): a server that pages slowly
   * fails the listing, instead of holding the sync, or the health round, for 100 page timeouts.
   */
  async list(
    service: McpServiceRecord,
    signal?: AbortSignal,
    budget: McpListingBudget = SYNC_LISTING_BUDGET,
  ): Promise<McpToolListing> {
    const { endpoints, problems, hidden } = await this.endpointsOf(service);
    const started = performance.now();
    for (const endpoint of endpoints) {
      const withinMs = Math.floor(budget.totalMs - (performance.now() - started));
      if (withinMs <= 0) {
        problems.push(`${withoutUserInfo(endpoint.url)}: not tried, the listing's ${budget.totalMs} ms were spent`);
        continue;
      }
      try {
        const tools = (await this.pool.listAllTools(endpoint, {
          signal,
          timeoutMs: Math.min(budget.pageMs, withinMs),
          withinMs,
        })) as unknown as ListedMcpTool[];
        return { tools, endpoint };
      } catch (err) {
        if (signal?.aborted) throw err;
        // A server may quote the credentials it refused ("token ... has expired"): hidden before the text is cut.
        const problem = hideSecretValues(`${endpoint.url}: ${(err as Error).message}`, hidden);
        problems.push(cut(withoutUserInfo(problem), MAX_INSTANCE_PROBLEM_CHARS));
      }
    }
    throw new McpServiceUnreachableError(
      problems.length ? `no instance answered tools/list (${problems.join('; ')})` : 'no instance answered tools/list',
    );
  }

  /**
   * The endpoints to try, in order, with the reasons instances were left out; each carries the service's headers and
   * its tenant as the session's owner. `hidden`: the secret values those headers carry, never to be reported.
   */
  private async endpointsOf(
    service: McpServiceRecord,
  ): Promise<{ endpoints: McpEndpoint[]; problems: string[]; hidden: readonly string[] }> {
    let sent: Awaited<ReturnType<ToolHeadersResolver['headersToSend']>>;
    try {
      sent = await this.headerSecrets.headersToSend(`MCP service "${service.name}"`, service, true);
    } catch (err) {
      throw new McpServiceUnreachableError((err as Error).message);
    }
    const { headers, hidden } = sent;
    const found = await this.instanceEndpointsOf(service);
    const owner = service.tenantId;
    return {
      endpoints: found.endpoints.map((e) => ({ ...e, owner, ...(headers && { headers }) })),
      problems: found.problems,
      hidden,
    };
  }

  private async instanceEndpointsOf(
    service: McpServiceRecord,
  ): Promise<{ endpoints: McpEndpoint[]; problems: string[] }> {
    if (service.kind === 'STATIC')
      return { endpoints: [{ url: service.url!, transport: service.transport ?? 'auto' }], problems: [] };
    const refused = refusedNamespaceReason(service, this.config);
    if (refused) throw new McpServiceUnreachableError(refused);
    const ref = nacosRefOf(service, this.config);
    let healthy;
    try {
      healthy = await this.naming.getHealthyInstances(ref);
    } catch (err) {
      throw new McpServiceUnreachableError(
        `Nacos lookup of ${ref.groupName}@@${ref.serviceName} (namespace ${ref.namespaceId}) failed: ${(err as Error).message}`,
      );
    }
    this.instances.set(nacosKeyOf(ref), healthy);
    if (healthy.length === 0) {
      throw new McpServiceUnreachableError(
        `no healthy instance of ${ref.groupName}@@${ref.serviceName} in Nacos namespace ${ref.namespaceId}`,
      );
    }
    const endpoints: McpEndpoint[] = [];
    const problems: string[] = [];
    const defaults = endpointDefaultsOf(service, this.config);
    for (const instance of weightedOrder(healthy)) {
      try {
        endpoints.push(mcpEndpointOf(instance, defaults));
      } catch (err) {
        problems.push((err as Error).message);
      }
    }
    return { endpoints, problems };
  }
}

/** A URL's user info never reaches a log line or a stored health reason (rows registered before it was refused). */
function withoutUserInfo(text: string): string {
  return text.replace(/(\bhttps?:\/\/)[^\s/@]*@/gi, '$1***@');
}
