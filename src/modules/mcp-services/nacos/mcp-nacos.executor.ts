import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { defaultNacosNamespace, noNacosNamespaceMessage } from '@app/config/nacos-namespaces';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { McpClientPool } from '@app/modules/executors/mcp/mcp-client.pool';
import { mapCallToolResult } from '@app/modules/executors/mcp/mcp-content.mapper';
import { errorWithoutSecrets, outputWithoutSecrets } from '@app/modules/executors/secrets/tool-header.secrets';
import { ToolHeadersResolver } from '@app/modules/executors/secrets/tool-headers.resolver';
import {
  ToolCallError,
  type ToolExecutor,
  type ToolInvocation,
  type ToolOutput,
} from '@app/modules/executors/tool-executor';
import { ToolErrorClass } from '@app/modules/executors/tool-error-class';
import { remoteCallContextOf, remoteCallMeta } from '@app/modules/executors/remote-context/remote-call.context';
import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { mcpEndpointOf, type McpEndpointDefaults } from './nacos-instance-endpoint';
import { NACOS_NAMING, type NacosInstance, type NacosNamingPort, type NacosServiceRef } from './nacos-naming.adapter';
import { NacosInstanceCache } from './nacos-instance.cache';
import { weightedOrder } from './nacos-instance.order';
import { NacosFollows } from './nacos-follows';
import { McpServiceDirectory } from '../mcp-service.directory';
import { endpointDefaultsOf, nacosKeyOf, nacosRefOf } from '../mcp-service.refs';
import { refusedNamespaceReason } from '../mcp-service-namespace.rules';
import { DEFAULT_NACOS_GROUP } from '../mcp-service.types';

/**
 * Executes `serviceType: MCP_NACOS` tools: resolves the healthy instances of the tool's Nacos service at call
 * time (the pushed instance cache, or Nacos itself when the cache knows none), picks one by weight and calls
 * `remoteName ?? name` over the pooled session of that instance's URL. On failure it tries the next instance
 * (by weight) only when the request provably never reached the first (`reachedRemote === false`), or when
 * the tool is READ_ONLY and the failure transient: a side-effecting call that may have been received is
 * never sent to a second instance.
 */
@Injectable()
export class McpNacosToolExecutor implements ToolExecutor, OnApplicationShutdown {
  readonly serviceType = 'MCP_NACOS' as const;
  /** Services followed since a call read them; idle ones are let go and their cached instances dropped. */
  private readonly followed: NacosFollows;

  constructor(
    private readonly pool: McpClientPool,
    private readonly headerSecrets: ToolHeadersResolver,
    private readonly directory: McpServiceDirectory,
    private readonly instances: NacosInstanceCache,
    @Inject(NACOS_NAMING) private readonly naming: NacosNamingPort,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {
    this.followed = new NacosFollows((key) => this.instances.delete(key));
  }

  async execute(invocation: ToolInvocation): Promise<ToolOutput> {
    const { tool } = invocation;
    const { ref, defaults } = await this.targetOf(tool);
    // The tool's headers (its service's, secrets from its own scope) go on every request of the session; the
    // secrets they carry are hidden from what an instance answers.
    const { headers, hidden } = await this.headerSecrets.headersToSend(`MCP tool "${tool.name}"`, tool);
    const tried = new Set<string>();
    let last: ToolCallError | undefined;
    // First the cached instances; when every one failed before reaching it, Nacos is asked once for a newer set.
    for (const fresh of [false, true]) {
      const candidates = (fresh ? await this.readNacos(ref) : await this.healthyInstances(ref)).filter(
        (i) => !tried.has(i.instanceId),
      );
      for (const instance of weightedOrder(candidates)) {
        tried.add(instance.instanceId);
        try {
          return outputWithoutSecrets(await this.callOn(instance, defaults, headers, invocation), hidden);
        } catch (err) {
          const error = errorWithoutSecrets(asToolCallError(err, tool), hidden);
          if (invocation.signal.aborted || !mayFailOver(tool, error)) throw error;
          last = error;
        }
      }
    }
    throw (
      last ??
      new ToolCallError(
        `no healthy instance of Nacos service ${ref.groupName}@@${ref.serviceName} (namespace ${ref.namespaceId}) to call ${tool.name} on; call again once an instance of it is registered and healthy in Nacos`,
        ToolErrorClass.MCP_CONNECT_FAILED,
        {
          transient: true,
          reachedRemote: false,
        },
      )
    );
  }

  onApplicationShutdown(): void {
    this.followed.stopAll();
  }

  private async callOn(
    instance: NacosInstance,
    defaults: McpEndpointDefaults,
    headers: Record<string, string> | undefined,
    invocation: ToolInvocation,
  ): Promise<ToolOutput> {
    const { tool } = invocation;
    let endpoint;
    try {
      endpoint = {
        ...mcpEndpointOf(instance, defaults),
        headers,
        owner: invocation.tool.tenantId,
        caller: invocation.tenantId,
      };
    } catch (err) {
      throw new ToolCallError((err as Error).message, ToolErrorClass.INVALID_REQUEST, {
        transient: false,
        reachedRemote: false,
      });
    }
    const result = await this.pool.callTool(endpoint, tool.remoteName ?? tool.name, invocation.arguments, {
      signal: invocation.signal,
      timeoutMs: tool.timeoutMs && tool.timeoutMs > 0 ? tool.timeoutMs : this.config.toolDefaultTimeoutMs,
      meta: remoteCallMeta(remoteCallContextOf(invocation)),
    });
    return mapCallToolResult(result);
  }

  /**
   * The Nacos service of the tool: its MCP service's, or (a tool an admin registered by hand) parsed from
   * "service@group", in its owner's namespace: the platform's for a platform tool, the tenant's first assigned one
   * (NACOS_TENANT_NAMESPACES) for a tenant's; a tenant with none looks nothing up (never in the platform's), nor
   * does a service whose tenant-chosen namespace is no longer the tenant's.
   */
  private async targetOf(tool: ToolDescriptor): Promise<{ ref: NacosServiceRef; defaults: McpEndpointDefaults }> {
    const service = tool.mcpServiceId ? await this.directory.get(tool.mcpServiceId) : null;
    if (service?.kind === 'NACOS') {
      const refused = refusedNamespaceReason(service, this.config);
      if (refused) throw noLookup(refused);
      return { ref: nacosRefOf(service, this.config), defaults: endpointDefaultsOf(service, this.config) };
    }
    const namespaceId = defaultNacosNamespace(this.config, tool.tenantId);
    if (namespaceId === null) throw noLookup(noNacosNamespaceMessage(tool.tenantId!));
    const at = tool.endpoint.lastIndexOf('@');
    const serviceName = at < 0 ? tool.endpoint : tool.endpoint.slice(0, at);
    const groupName = at < 0 ? DEFAULT_NACOS_GROUP : tool.endpoint.slice(at + 1);
    return {
      ref: { serviceName, groupName, namespaceId },
      defaults: { path: this.config.mcp.defaultPath, transport: this.config.mcp.defaultTransport },
    };
  }

  /** Cached instances (kept fresh by pushes); Nacos is asked when the cache has none. */
  private async healthyInstances(ref: NacosServiceRef): Promise<NacosInstance[]> {
    const key = nacosKeyOf(ref);
    this.followed.touch(key);
    const cached = this.instances.get(key);
    return cached?.length ? cached : this.readNacos(ref);
  }

  /** The healthy instances as Nacos has them now; the service is followed (pushes refresh the cache) from then on. */
  private async readNacos(ref: NacosServiceRef): Promise<NacosInstance[]> {
    const key = nacosKeyOf(ref);
    let fresh: NacosInstance[];
    try {
      fresh = await this.naming.getHealthyInstances(ref);
    } catch (err) {
      throw new ToolCallError(
        `Nacos lookup of ${ref.groupName}@@${ref.serviceName} failed: ${(err as Error).message}`,
        ToolErrorClass.MCP_CONNECT_FAILED,
        {
          transient: true,
          reachedRemote: false,
          cause: err,
        },
      );
    }
    this.instances.set(key, fresh);
    this.followed.follow(key, () =>
      this.naming.subscribe(ref, (list) => {
        // A push that lands after the service was let go must not leave a list no push refreshes any more.
        if (this.followed.has(key)) this.instances.set(key, list);
      }),
    );
    return fresh;
  }
}

/** The call cannot be made: no Nacos lookup, nothing sent. */
function noLookup(message: string): ToolCallError {
  return new ToolCallError(message, ToolErrorClass.INVALID_REQUEST, { transient: false, reachedRemote: false });
}

function mayFailOver(tool: ToolDescriptor, error: ToolCallError): boolean {
  return !error.reachedRemote || (tool.sideEffect === 'READ_ONLY' && error.transient);
}

function asToolCallError(err: unknown, tool: ToolDescriptor): ToolCallError {
  if (err instanceof ToolCallError) return err;
  return new ToolCallError(
    `MCP tool ${tool.name} failed: ${(err as Error)?.message ?? String(err)}`,
    ToolErrorClass.EXECUTOR_ERROR,
    {
      transient: false,
      reachedRemote: true,
      cause: err,
    },
  );
}
