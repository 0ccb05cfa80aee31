import type { GatewayConfig } from './gateway-config';

/**
 * The Nacos namespaces a tenant's services and tools may be looked up in (NACOS_TENANT_NAMESPACES). Every lookup
 * uses the platform's Nacos credentials, so a tenant reaches only these; none assigned: none.
 */
export function tenantNacosNamespaces(config: Pick<GatewayConfig, 'nacos'>, tenantId: string): readonly string[] {
  return config.nacos.tenantNamespaces.get(tenantId) ?? [];
}

/**
 * Where a lookup that names no namespace goes for `tenantId`: the platform's (NACOS_NAMESPACE, else `public`) for
 * the platform, the tenant's first assigned namespace for a tenant, null for a tenant with none (never the
 * platform's).
 */
export function defaultNacosNamespace(config: Pick<GatewayConfig, 'nacos'>, tenantId: string | null): string | null {
  if (tenantId === null) return config.nacos.namespace || 'public';
  return tenantNacosNamespaces(config, tenantId)[0] ?? null;
}

/** Why a tenant has no Nacos lookups, and what the platform admin does about it. */
export function noNacosNamespaceMessage(tenantId: string): string {
  return `Tenant ${tenantId} has no Nacos namespace: Nacos is read with the platform's credentials, so the platform admin assigns namespaces in NACOS_TENANT_NAMESPACES (e.g. ${tenantId}=<namespace>) or registers the service with the platform key.`;
}
