import { unreachableTenantSecret } from './tool-secret.refs';

/**
 * The secrets one tool or MCP service may reference: a platform-wide one (tenantId null) only TOOL_SECRETS,
 * a tenant's own only that tenant's secrets. Never both, never another tenant's.
 */
export interface SecretScope {
  /** null: platform-wide. */
  readonly tenantId: string | null;
  get(name: string): string | undefined;
  /**
   * Why `name` cannot be filled, in words safe for whoever reads the call's result: a tenant's own secret is
   * named (it is theirs), a platform secret never is.
   */
  missing(name: string): string;
}

export function platformSecretScope(secrets: ReadonlyMap<string, string>): SecretScope {
  return {
    tenantId: null,
    get: (name) => secrets.get(name),
    missing: () =>
      'references a platform secret that TOOL_SECRETS does not define; the platform operator must add it to TOOL_SECRETS and restart the gateway',
  };
}

export interface TenantSecretValues {
  values: ReadonlyMap<string, string>;
  /** Stored names whose value could not be decrypted (stored under another SECRETS_KEY). */
  unreadable: ReadonlySet<string>;
  keyConfigured: boolean;
}

export function tenantSecretScope(tenantId: string, loaded: TenantSecretValues): SecretScope {
  return {
    tenantId,
    get: (name) => loaded.values.get(name),
    missing: (name) => {
      // Stored before references were checked at registration: the PUT a missing secret points to would refuse it.
      const unreachable = unreachableTenantSecret(tenantId, name);
      if (unreachable) return unreachable;
      if (!loaded.keyConfigured)
        return `references secret ${name}, but tenant secrets are unavailable: SECRETS_KEY is not set on the gateway (ask the platform operator)`;
      if (loaded.unreadable.has(name))
        return `references secret ${name}, whose stored value cannot be decrypted with the current SECRETS_KEY; set it again with PUT /api/v1/admin/tenants/${tenantId}/secrets/${name}`;
      return `references secret ${name}, which tenant ${tenantId} does not have; set it with PUT /api/v1/admin/tenants/${tenantId}/secrets/${name}`;
    },
  };
}
