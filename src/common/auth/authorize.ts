import { DomainError } from '../errors/domain-error';
import { CommonErrorCode } from '../errors/common.errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyResolver, ApiRole, AuthContext, AuthFailureLimit } from './auth-context';
import { bindLogFields, type LogFields } from '../logging/log-context';

/**
 * The one authorization rule of every non-public endpoint, applied by the global Nest guard:
 * `Authorization: Bearer <key>`; no or unknown key → 401; a role the endpoint does not allow → 403.
 * `log`: the request's log fields, which get the key's tenant once it is authorized.
 */
export async function authorize(
  resolver: ApiKeyResolver,
  authorization: string | undefined,
  roles: readonly ApiRole[] | undefined,
  authenticated?: AuthContext,
  log?: LogFields,
): Promise<AuthContext> {
  const auth = authenticated ?? (await authenticate(resolver, authorization));
  if (!roles || !roles.includes(auth.role)) {
    throw new DomainError(
      CommonErrorCode.FORBIDDEN,
      `This endpoint needs a key with role ${roles?.join(' or ') ?? '(none)'}; yours has role ${auth.role}.`,
    );
  }
  // From here on the request's log lines (its completion line too) say which tenant it served.
  if (auth.tenantId) bindLogFields(log, { tenantId: auth.tenantId });
  return auth;
}

/**
 * {@link authenticate} for an HTTP request, the one place that counts failed authentications by client address
 * (the key guard and the early authentication hook both come here, and the guard never again for a request the
 * hook has seen). An address whose failures reached AUTH_FAILURES_PER_MINUTE gets 429 with Retry-After for any
 * request whose key this instance does not already know as a real key: answered from memory, so a caller spraying
 * made-up keys no longer costs a database read each. A known key still passes, so the real clients behind a proxy
 * that shares the address keep working. A request whose key was being looked up while the address reached its limit
 * (other requests of it failed meanwhile) and is not a real key is refused as a new one would be, not answered 401.
 */
export async function authenticateRequest(
  resolver: ApiKeyResolver,
  failures: AuthFailureLimit,
  request: Pick<FastifyRequest, 'ip' | 'headers'>,
  reply: Pick<FastifyReply, 'header'>,
): Promise<AuthContext> {
  const authorization = request.headers.authorization;
  const refusedFor = failures.secondsRefused(request.ip);
  if (refusedFor > 0) {
    const key = bearerKey(authorization);
    if (key === undefined || !resolver.isKnown(key)) refuseAddress(failures, refusedFor, reply);
  }
  try {
    return await authenticate(resolver, authorization);
  } catch (error) {
    if (error instanceof DomainError && error.code === CommonErrorCode.UNAUTHENTICATED) {
      const refusedNow = failures.secondsRefused(request.ip);
      if (refusedNow > 0) refuseAddress(failures, refusedNow, reply);
      failures.recordFailure(request.ip);
    }
    throw error;
  }
}

/** 429 for an address refused for `seconds` more for its failed authentications (counted as a refusal). */
function refuseAddress(failures: AuthFailureLimit, seconds: number, reply: Pick<FastifyReply, 'header'>): never {
  failures.recordRefusal();
  void reply.header('Retry-After', seconds);
  throw new DomainError(
    CommonErrorCode.TOO_MANY_REQUESTS,
    `Too many failed authentications from your address within a minute (AUTH_FAILURES_PER_MINUTE); wait ${seconds} s (see the Retry-After header) and retry with a valid key.`,
  );
}

/**
 * The key's context; no or unknown key → 401 (the first half of {@link authorize}, whatever the roles). Counts
 * nothing: requests come through {@link authenticateRequest}.
 */
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
