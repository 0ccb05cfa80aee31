import { CommonErrorCode } from '../errors/common.errors';
import { DomainError } from '../errors/domain-error';
import type { AuthContext } from './auth-context';

/**
 * The tenant a new resource goes to: with the platform admin key, the `requested` one (null or omitted: platform-wide);
 * with a tenant's admin key, its own tenant (omitted or named), never another one nor the platform (403 FORBIDDEN).
 * `resources` names what is made in the message, e.g. `tools`.
 */
export function targetTenantOf(
  auth: AuthContext,
  requested: string | null | undefined,
  resources: string,
): string | null {
  if (auth.tenantId === null) return requested ?? null;
  if (requested === undefined || requested === auth.tenantId) return auth.tenantId;
  throw new DomainError(
    CommonErrorCode.FORBIDDEN,
    requested === null
      ? `Platform-wide ${resources} are made with the platform admin key (ADMIN_API_KEY); omit tenantId to make one in your tenant.`
      : `Your admin key is bound to tenant ${auth.tenantId}; omit tenantId or use your own.`,
  );
}
