/** `${secret:NAME}` in a header value (the name as TOOL_SECRETS and tenant secrets spell it). */
export const SECRET_REF_PATTERN = /\$\{secret:([A-Za-z0-9_]+)\}/g;

/** Whether a header value references a secret. */
export function hasSecretRef(value: string): boolean {
  return value.includes('${secret:');
}

/** Whether any of the headers references a secret. */
export function headersHaveSecretRefs(headers: Record<string, string> | null | undefined): boolean {
  if (!headers) return false;
  for (const value of Object.values(headers)) if (typeof value === 'string' && hasSecretRef(value)) return true;
  return false;
}

/**
 * The headers with every secret reference's name hidden (`${secret:***}`): how platform-managed headers are
 * shown to a tenant's admin, who must not learn which platform secrets exist.
 */
export function maskSecretRefs(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, typeof v === 'string' ? v.replace(SECRET_REF_PATTERN, '${secret:***}') : v]));
}
