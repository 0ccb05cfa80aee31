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
  /** Per header templates object: what was worked out from them in the scope they were last used with. */
  private readonly filled = new WeakMap<Record<string, string>, FilledHeaders>();

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
   * what the remote answers (see {@link secretsToHide}); the scope is read once for both.
   */
  async headersToSend(
    ownerLabel: string,
    owner: HeaderOwner,
    fresh = false,
  ): Promise<{ headers: Record<string, string> | undefined; hidden: readonly string[] }> {
    const templates = owner.headers;
    if (!templates || Object.keys(templates).length === 0) return { headers: undefined, hidden: [] };
    const scope = await this.scopeFor(owner, fresh);
    return { headers: this.filledIn(ownerLabel, templates, scope), hidden: this.secretsToHide(owner, scope) };
  }

  /** The owner's headers with secrets filled; undefined when it has none. @throws ToolCallError SECRET_MISSING */
  async headersOf(ownerLabel: string, owner: HeaderOwner, fresh = false): Promise<Record<string, string> | undefined> {
    const templates = owner.headers;
    if (!templates || Object.keys(templates).length === 0) return undefined;
    return this.filledIn(ownerLabel, templates, await this.scopeFor(owner, fresh));
  }

  /**
   * The secret values `owner`'s headers carry in `scope` (see {@link secretValuesToHide}): worked out once per headers
   * object and scope, not on every call.
   */
  secretsToHide(owner: HeaderOwner, scope: SecretScope): readonly string[] {
    if (!owner.headers || scope === NO_SECRETS) return [];
    return (this.filledFor(owner.headers, scope).hidden ??= secretValuesToHide(owner.headers, scope));
  }

  private filledIn(ownerLabel: string, templates: Record<string, string>, scope: SecretScope): Record<string, string> {
    return (this.filledFor(templates, scope).headers ??= fillHeadersSecrets(ownerLabel, templates, scope));
  }

  private filledFor(templates: Record<string, string>, scope: SecretScope): FilledHeaders {
    let entry = this.filled.get(templates);
    if (!entry || entry.scope !== scope) this.filled.set(templates, (entry = { scope }));
    return entry;
  }
}

/** What one header templates object gives in one scope: its filled headers and the values to hide. */
interface FilledHeaders {
  scope: SecretScope;
  headers?: Record<string, string>;
  hidden?: readonly string[];
}
