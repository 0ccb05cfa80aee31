import { DomainError } from '../errors/domain-error';
import { CommonErrorCode } from '../errors/common.errors';
import type { ApiKeyResolver, ApiRole, AuthContext } from './auth-context';
import { bindLogFields } from '../logging/log-context';

/**
 * The one authorization rule of every non-public endpoint, applied by the global Nest guard:
 * `Authorization: Bearer <key>`; no or unknown key → 401; a role the endpoint does not allow → 403.
 */
export async function authorize(
  resolver: ApiKeyResolver,
  authorization: string | undefined,
  roles: readonly ApiRole[] | undefined,
  authenticated?: AuthContext,
): Promise<AuthContext> {
  const auth = authenticated ?? (await authenticate(resolver, authorization));
  if (!roles || !roles.includes(auth.role)) {
    throw new DomainError(
      CommonErrorCode.FORBIDDEN,
      `This endpoint needs a key with role ${roles?.join(' or ') ?? '(none)'}; yours has role ${auth.role}.`,
    );
  }
  // From here on the request's log lines (its completion line too) say which tenant it served.
  if (auth.tenantId) bindLogFields({ tenantId: auth.tenantId });
  return auth;
}

/** The key's context; no or unknown key → 401 (the first half of {@link authorize}, whatever the roles). */
export async function authenticate(resolver: ApiKeyResolver, authorization: string | undefined): Promise<AuthContext> {
  const key = bearerKey(authorization);
  if (!key) {
    throw new DomainError(
      CommonErrorCode.UNAUTHENTICATED,
      'Missing API key: send the header "Authorization: Bearer <key>".',
    );
  }
  const auth = await resolver.resolve(key);
  if (!auth) {
    throw new DomainError(
      CommonErrorCode.UNAUTHENTICATED,
      'Unknown or revoked API key: check the key, or ask an admin for a new one.',
    );
  }
  return auth;
}

function bearerKey(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
