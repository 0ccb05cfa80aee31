import type { GatewayConfig } from '@app/config/gateway-config';
import { tenantNacosNamespaces } from '@app/config/nacos-namespaces';
import { nacosRefOf } from './mcp-service.refs';
import type { McpServiceRecord } from './mcp-service.types';

/**
 * Why the gateway may not look a NACOS service up, or null when it may: its tenant's admin chose its namespace and
 * NACOS_TENANT_NAMESPACES no longer assigns that namespace to the tenant (the platform moved it, perhaps to another
 * tenant). Nacos is read with the platform's credentials, so no sync, health check, subscription or call reads that
 * namespace for the tenant. A namespace the platform admin assigned stays, as does that of a service registered
 * before the gateway recorded who chose it.
 */
export function refusedNamespaceReason(service: McpServiceRecord, config: Pick<GatewayConfig, 'nacos'>): string | null {
  if (service.kind !== 'NACOS' || service.namespaceChosenBy !== 'TENANT' || service.tenantId === null) return null;
  const tenant = service.tenantId;
  const allowed = tenantNacosNamespaces(config, tenant);
  const namespace = nacosRefOf(service, config).namespaceId;
  if (allowed.includes(namespace)) return null;
  const now = allowed.length ? `its namespaces are ${allowed.join(', ')}` : 'it has none';
  return (
    `MCP service ${service.name} of tenant ${tenant} is in Nacos namespace ${namespace}, which its tenant admin chose and NACOS_TENANT_NAMESPACES no longer assigns to ${tenant} (${now}); ` +
    `Nacos is read with the platform's credentials, so nothing is looked up there for ${tenant}. ` +
    `The platform admin assigns ${namespace} to ${tenant} again in NACOS_TENANT_NAMESPACES, or deletes the service and registers it again (a tenant admin in one of the tenant's namespaces, or the platform key in the namespace the platform assigns it).`
  );
}
