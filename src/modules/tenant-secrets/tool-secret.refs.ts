import type { FieldProblem } from '@app/common/errors/validation';

/** `${secret:NAME}` in a header value (the name as TOOL_SECRETS and tenant secrets spell it). */
export const SECRET_REF_PATTERN = /\$\{secret:([A-Za-z0-9_]+)\}/g;

/** Tenant secret names: as `${secret:NAME}` spells them, upper case so that they mean the same on SQLite and MySQL. */
export const TENANT_SECRET_NAME_PATTERN = /^[A-Z_][A-Z0-9_]{0,63}$/;

/** What a tenant secret's name must be, in words (after "must be" or a colon). */
export const TENANT_SECRET_NAME_RULE =
  '1-64 upper-case letters, digits or _, not starting with a digit (e.g. GITHUB_TOKEN)';

/**
 * The references among `values` (field name → text holding `${secret:NAME}`) that the secrets of tenant `tenantId` can
 * never fill, one problem per field: a tenant secret's name is upper case ({@link TENANT_SECRET_NAME_PATTERN}), so a
 * tenant's tool, MCP service or model provider referencing `${secret:github_token}` would fail every call, and the PUT
 * its error pointed to refuses that name. None for a platform-wide owner (`tenantId` null): TOOL_SECRETS names take
 * any letter case.
 */
export function tenantSecretRefProblems(tenantId: string | null, values: Record<string, string>): FieldProblem[] {
  if (tenantId === null) return [];
  const problems: FieldProblem[] = [];
  for (const [field, value] of Object.entries(values)) {
    if (typeof value !== 'string') continue;
    const names = new Set([...value.matchAll(SECRET_REF_PATTERN)].map(([, name]) => name));
    const found = [...names].flatMap((name) => unreachableTenantSecret(tenantId, name) ?? []);
    if (found.length > 0) problems.push({ field, problems: found });
  }
  return problems;
}

/**
 * Why `${secret:NAME}` can never be filled from the secrets of tenant `tenantId`, and what to write instead; null when
 * `name` is one a tenant secret may have.
 */
export function unreachableTenantSecret(tenantId: string, name: string): string | null {
  if (TENANT_SECRET_NAME_PATTERN.test(name)) return null;
  const upper = name.toUpperCase();
  const instead = TENANT_SECRET_NAME_PATTERN.test(upper) ? upper : '<NAME>';
  return `references \${secret:${name}}, a name no secret of tenant ${tenantId} can have (a tenant secret's name is ${TENANT_SECRET_NAME_RULE}); reference \${secret:${instead}} instead and store it with PUT /api/v1/admin/tenants/${tenantId}/secrets/${instead}`;
}

/**
 * `text` with each secret reference's name hidden (`${secret:***}`): how a platform-wide object shows to a tenant's
 * admin, who must not learn which platform secrets exist (the platform key sees the names).
 */
export function maskSecretRefs(text: string): string {
  return text.replace(SECRET_REF_PATTERN, '${secret:***}');
}

/** Whether a header value references a secret. */
function hasSecretRef(value: string): boolean {
  return value.includes('${secret:');
}

/** Whether any of the headers references a secret. */
export function headersHaveSecretRefs(headers: Record<string, string> | null | undefined): boolean {
  if (!headers) return false;
  for (const value of Object.values(headers)) if (typeof value === 'string' && hasSecretRef(value)) return true;
  return false;
}
