/** What a redacted value is replaced with. */
export const REDACTED = '***';

/**
 * Built-in sensitive keys, matched against the key lowercased with every separator removed, so `access_key`,
 * `access-key`, `AccessKey` and `accessKey` are one key. Short words (`otp`, `pin`, `dsn`) only as the whole key
 * or at its start or end; `auth` anywhere but in `author`/`authority`.
 */
const SENSITIVE_KEY =
  /pass|pwd|secret|token|jwt|bearer|credential|cookie|sessid|privatekey|connectionstring|(?:api|access|signing|encryption|master|ssh|auth|session|client|app)key|auth(?!or(?!iz))|^otp|otp$|^pin(?:code)?$|^cvv$|^cvc$|^dsn$/;

function normalizedKey(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/**
 * A test for keys whose values are never shown: the built-in ones and the tool's `fields`
 * (its `result.redactFields`), all case- and separator-insensitive.
 */
export function sensitiveKeyTest(fields: readonly string[] = []): (key: string) => boolean {
  const named = new Set(fields.map(normalizedKey));
  return (key) => {
    const k = normalizedKey(key);
    return SENSITIVE_KEY.test(k) || named.has(k);
  };
}
