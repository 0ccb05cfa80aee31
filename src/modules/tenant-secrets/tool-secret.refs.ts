/** `${secret:NAME}` in a header value (the name as TOOL_SECRETS and tenant secrets spell it). */
export const SECRET_REF_PATTERN = /\$\{secret:([A-Za-z0-9_]+)\}/g;

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
