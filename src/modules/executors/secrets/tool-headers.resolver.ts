import { Injectable } from '@nestjs/common';
import { ToolSecretsResolver } from '@app/modules/tenant-secrets/tool-secrets.resolver';
import { headersHaveSecretRefs } from '@app/modules/tenant-secrets/tool-secret.refs';
import type { SecretScope } from '@app/modules/tenant-secrets/tool-secret.scope';
import { fillHeadersSecrets } from './tool-header.secrets';

/** What owns header templates: a tool, or an MCP service (null tenant: platform-wide). */
export interface HeaderOwner {
  tenantId: string | null;
  headers: Record<string, string> | null;
}

const NO_SECRETS: SecretScope = { tenantId: null, get: () => undefined, missing: () => 'references a secret' };

/**
 * Fills the header templates of tools and MCP services with the secrets of their own scope at call time.
 * Templates without a reference need no lookup; filled headers are kept per template object and scope, so a
 * tool's headers are the same object call after call (the MCP pool keys its sessions by them) until the tool
 * or the tenant's secrets change.
 */
@Injectable()
export class ToolHeadersResolver {
  private readonly filled = new WeakMap<
    Record<string, string>,
    { scope: SecretScope; headers: Record<string, string> }
  >();

  constructor(private readonly secrets: ToolSecretsResolver) {}

  /** The scope to fill `owner`'s headers from (no lookup when they reference no secret). */
  scopeFor(owner: HeaderOwner, fresh = false): SecretScope | Promise<SecretScope> {
    return headersHaveSecretRefs(owner.headers) ? this.secrets.scopeOf(owner.tenantId, fresh) : NO_SECRETS;
  }

  /** The owner's headers with secrets filled; undefined when it has none. @throws ToolCallError SECRET_MISSING */
  async headersOf(ownerLabel: string, owner: HeaderOwner, fresh = false): Promise<Record<string, string> | undefined> {
    const templates = owner.headers;
    if (!templates || Object.keys(templates).length === 0) return undefined;
    const scope = await this.scopeFor(owner, fresh);
    const cached = this.filled.get(templates);
    if (cached && cached.scope === scope) return cached.headers;
    const headers = fillHeadersSecrets(ownerLabel, templates, scope);
    this.filled.set(templates, { scope, headers });
    return headers;
  }
}
