import { Inject, Injectable, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { ConfigVersionService } from '@app/database/config-version.service';
import { TenantSecretsRepository } from './tenant-secrets.repository';
import { TenantSecretsCipher } from './tenant-secrets.cipher';
import { platformSecretScope, tenantSecretScope, type SecretScope } from './tool-secret.scope';

interface TenantEntry {
  /** The `<global>:<tenant>` config version the values were loaded at. */
  stamp: string;
  scope: Promise<SecretScope>;
}

/**
 * Tenants whose decrypted secrets stay in memory, the least recently used let go first (read and decrypted again when
 * the tenant's tools next need them): else every tenant whose tools ever ran kept its values until restart.
 */
export const MAX_CACHED_SECRET_SCOPES = 1_000;

/**
 * The secrets a tool's `${secret:NAME}` references resolve from, by the tool's (or MCP service's) tenant:
 * platform-wide → TOOL_SECRETS; a tenant → that tenant's secrets, decrypted once and kept in memory.
 *
 * Freshness without a query per call: every secret write bumps the tenant's config version in its
 * transaction, and every act/execute request reads that version on arrival (the visibility re-check), so the
 * version this process last saw for the tenant is at least as fresh as the request. A cached tenant is
 * reloaded when that version moved (a write on any instance); a write on this instance also drops it at once.
 */
@Injectable()
export class ToolSecretsResolver {
  private readonly logger = new Logger(ToolSecretsResolver.name);
  private readonly platform: SecretScope;
  private readonly tenants = new LRUCache<string, TenantEntry>({ max: MAX_CACHED_SECRET_SCOPES });

  constructor(
    @Inject(GATEWAY_CONFIG) config: Pick<GatewayConfig, 'toolSecrets'>,
    private readonly repo: TenantSecretsRepository,
    private readonly cipher: TenantSecretsCipher,
    private readonly configVersion: ConfigVersionService,
  ) {
    this.platform = platformSecretScope(config.toolSecrets);
  }

  /**
   * The scope of a tool or service of `tenantId` (null: platform-wide). `fresh`: read the config version now
   * (for paths that did not, such as an MCP sync) instead of using the one last seen.
   */
  async scopeOf(tenantId: string | null, fresh = false): Promise<SecretScope> {
    if (tenantId === null) return this.platform;
    const stamp = (!fresh && this.configVersion.lastSeen(tenantId)) || (await this.configVersion.read(tenantId));
    const cached = this.tenants.get(tenantId);
    if (cached && cached.stamp === stamp) return cached.scope;
    const entry: TenantEntry = { stamp, scope: this.load(tenantId) };
    this.tenants.set(tenantId, entry);
    entry.scope.catch(() => this.tenants.peek(tenantId) === entry && this.tenants.delete(tenantId));
    return entry.scope;
  }

  /** Forgets a tenant's decrypted values (after a write on this instance). */
  invalidate(tenantId: string): void {
    this.tenants.delete(tenantId);
  }

  private async load(tenantId: string): Promise<SecretScope> {
    const rows = await this.repo.findAllOfTenant(tenantId);
    const values = new Map<string, string>();
    const unreadable = new Set<string>();
    if (this.cipher.configured) {
      for (const row of rows) {
        try {
          values.set(row.name, this.cipher.decrypt(tenantId, row.name, row.valueEncrypted));
        } catch {
          unreadable.add(row.name);
        }
      }
    }
    if (unreadable.size > 0)
      this.logger.warn(
        `${unreadable.size} secret(s) of tenant ${tenantId} cannot be decrypted with the current SECRETS_KEY; set them again`,
      );
    return tenantSecretScope(tenantId, { values, unreadable, keyConfigured: this.cipher.configured });
  }
}
