/** Roles of API keys. `admin` manages the registry; `runtime` is an agent runtime acting for one tenant. */
export type ApiRole = 'admin' | 'runtime';
export const API_ROLES: readonly ApiRole[] = ['admin', 'runtime'];

/**
 * Who is calling, taken from the authenticated key and never from the body.
 * `tenantId` is null only for the platform admin key (ADMIN_API_KEY), which spans all tenants.
 */
export interface AuthContext {
  keyId: string;
  role: ApiRole;
  tenantId: string | null;
}

/** Resolves a presented bearer key to its context; implemented by the api-keys module. */
export interface ApiKeyResolver {
  resolve(presentedKey: string): Promise<AuthContext | null>;
  /**
   * Whether the key resolved to a real key lately on this instance (the platform key, or a key still held in the
   * resolver's cache of real keys): answered from memory, never from the database.
   */
  isKnown(presentedKey: string): boolean;
}
export const API_KEY_RESOLVER = Symbol('API_KEY_RESOLVER');

/**
 * Failed authentications per client address (AUTH_FAILURES_PER_MINUTE); implemented by the api-keys module. An
 * address whose failures reached the limit within its minute is refused until that minute is over.
 */
export interface AuthFailureLimit {
  /** The whole seconds `address` stays refused (its Retry-After); 0 when it is not refused. */
  secondsRefused(address: string): number;
  /** A request from `address` failed authentication (401). */
  recordFailure(address: string): void;
  /** A request from a refused address was answered 429 without its key being looked up. */
  recordRefusal(): void;
}
export const AUTH_FAILURE_LIMIT = Symbol('AUTH_FAILURE_LIMIT');
