import type { GatewayConfig } from '@app/config/gateway-config';
import type { McpEndpointDefaults } from './nacos/nacos-instance-endpoint';
import type { NacosServiceRef } from './nacos/nacos-naming.adapter';
import { DEFAULT_NACOS_GROUP, type McpServiceRecord } from './mcp-service.types';

/** The Nacos namespace a service lives in: its own, else NACOS_NAMESPACE, else `public`. */
function namespaceOf(service: Pick<McpServiceRecord, 'namespaceId'>, config: Pick<GatewayConfig, 'nacos'>): string {
  return service.namespaceId || config.nacos.namespace || 'public';
}

/** The Nacos service behind a NACOS record. */
export function nacosRefOf(service: McpServiceRecord, config: Pick<GatewayConfig, 'nacos'>): NacosServiceRef {
  return {
    serviceName: service.serviceName ?? '',
    groupName: service.groupName || DEFAULT_NACOS_GROUP,
    namespaceId: namespaceOf(service, config),
  };
}

/**
 * The key of the service's in-process sync queue: one sync at a time per upstream service in this process,
 * `<namespace>/<group>@<service>` for Nacos, `static:<id>` for a static URL.
 */
export function syncKeyOf(service: McpServiceRecord, config: Pick<GatewayConfig, 'nacos'>): string {
  if (service.kind === 'STATIC') return `static:${service.id}`;
  const ref = nacosRefOf(service, config);
  return nacosKeyOf(ref);
}

/**
 * The key of the service's sync lease across instances: per record (`static:<id>`, `nacos:<id>`), not per upstream
 * service. Two records of one Nacos service (two tenants, two prefixes) own different tools: a sync of one never
 * covers the other, so it must not make the other's sync on another instance be skipped.
 */
export function syncLeaseKeyOf(service: Pick<McpServiceRecord, 'kind' | 'id'>): string {
  return `${service.kind === 'STATIC' ? 'static' : 'nacos'}:${service.id}`;
}

/** `<namespace>/<group>@<service>`: how instance caches and the in-process sync queue name a Nacos service. */
export function nacosKeyOf(ref: NacosServiceRef): string {
  return `${ref.namespaceId}/${ref.groupName}@${ref.serviceName}`;
}

/** `service@group`: the endpoint of MCP_NACOS tools. */
export function nacosToolEndpointOf(service: McpServiceRecord): string {
  return `${service.serviceName}@${service.groupName || DEFAULT_NACOS_GROUP}`;
}

/** Endpoint defaults of the service's instances: the service's own path/transport, else MCP_DEFAULT_PATH/TRANSPORT. */
export function endpointDefaultsOf(service: McpServiceRecord, config: Pick<GatewayConfig, 'mcp'>): McpEndpointDefaults {
  return { path: service.path || config.mcp.defaultPath, transport: service.transport ?? config.mcp.defaultTransport };
}
