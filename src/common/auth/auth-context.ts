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
}
export const API_KEY_RESOLVER = Symbol('API_KEY_RESOLVER');
