import { Injectable, Logger } from '@nestjs/common';
import { ToolSecretsResolver } from '@app/modules/tenant-secrets/tool-secrets.resolver';
import { headersHaveSecretRefs } from '@app/modules/tenant-secrets/tool-secret.refs';
import type { SecretScope } from '@app/modules/tenant-secrets/tool-secret.scope';
import { fillHeadersSecrets, secretValuesToHide } from './tool-header.secrets';
import { ToolCallError } from '../tool-executor';
import { ToolErrorClass } from '../tool-error-class';

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
  private readonly logger = new Logger(ToolHeadersResolver.name);
  private readonly filled = new WeakMap<
    Record<string, string>,
    { scope: SecretScope; headers: Record<string, string> }
  >();

  constructor(private readonly secrets: ToolSecretsResolver) {}

  /** The scope to fill `owner`'s headers from (no lookup when they reference no secret). */
  scopeFor(owner: HeaderOwner, fresh = false): SecretScope | Promise<SecretScope> {
    if (!headersHaveSecretRefs(owner.headers)) return NO_SECRETS;
    return this.secrets.scopeOf(owner.tenantId, fresh).catch((err: unknown) => {
      throw this.unavailable(owner.tenantId, err);
    });
  }

  /** A failed read of the secrets (the database): transient, nothing sent; the cause is logged, never shown. */
  private unavailable(tenantId: string | null, err: unknown): ToolCallError {
    if (err instanceof ToolCallError) return err;
    const whose = tenantId === null ? 'The platform secrets' : `The secrets of tenant ${tenantId}`;
    this.logger.warn(`${whose} could not be read: ${(err as Error)?.message ?? String(err)}`);
    return new ToolCallError(
      `${whose} could not be read from the gateway's database; nothing was sent. Try again; if it persists, the platform operator should check the database.`,
      ToolErrorClass.SECRETS_UNAVAILABLE,
      { transient: true, reachedRemote: false, cause: err },
    );
  }

  /**
   * The owner's headers with secrets filled (see {@link headersOf}), and the secret values they carry, to hide from
   * what the remote answers (see {@link secretValuesToHide}).
   */
  async headersToSend(
    ownerLabel: string,
    owner: HeaderOwner,
  ): Promise<{ headers: Record<string, string> | undefined; hidden: readonly string[] }> {
    const headers = await this.headersOf(ownerLabel, owner);
    if (!headers || !headersHaveSecretRefs(owner.headers)) return { headers, hidden: [] };
    return { headers, hidden: secretValuesToHide(owner.headers, await this.scopeFor(owner)) };
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
