import type { FieldProblem } from '@app/common/errors/validation';

const SECRET_REF = /\$\{secret:[A-Za-z0-9_]+\}/g;
/** Header names whose value is a credential whatever it looks like. */
const SENSITIVE_HEADER =
  /auth|cookie|token|secret|api[-_]?key|password|passwd|credential|session|signature|private[-_]?key|^x-[a-z0-9-]*key$/i;
/** An HTTP authentication scheme followed by its credentials. */
const SCHEME_CREDENTIAL =
  /^\s*(bearer|basic|token|digest|bot|apikey|api-key|key|oauth|negotiate|ntlm|aws4-hmac-sha256|hmac|sso-key)\s+(.*)$/i;
/** Credentials that announce themselves: GitHub, Slack, Stripe/OpenAI-style keys, AWS key ids, Google API keys, JWTs. */
const KNOWN_TOKEN =
  /(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|xox[abpors]-[\w-]{10,}|\bsk-[\w-]{16,}|\b(?:sk|pk|rk)_(?:live|test)_\w{10,}|\bAKIA[0-9A-Z]{16}\b|\bAIza[\w-]{30,}|\beyJ[\w-]{8,}\.[\w-]{8,}\.)/;
/** Query parameters that carry a credential. */
const SENSITIVE_QUERY =
  /^(access[-_]?token|token|api[-_]?key|apikey|key|password|passwd|pwd|secret|client[-_]?secret|auth|sig|signature|session)$/i;

const HOW_TO_REFERENCE =
  "reference the credential as ${secret:NAME} instead: a tenant's tool or MCP service reads the tenant's own secrets (PUT /api/v1/admin/tenants/{tenantId}/secrets/NAME), a platform-wide one TOOL_SECRETS";

/**
 * Problems of header values that carry a literal credential (never echoing the value): in a header whose
 * name looks sensitive, everything but `${secret:NAME}` references, an authentication scheme and cookie names
 * is refused; in any header, a scheme followed by a literal credential or a self-announcing token is refused.
 */
export function headerCredentialProblems(headers: Record<string, string>, fieldPrefix = 'headers'): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') continue;
    if (carriesLiteralCredential(name, value)) {
      problems.push({ field: `${fieldPrefix}.${name}`, problems: [`holds a literal credential; ${HOW_TO_REFERENCE}`] });
    }
  }
  return problems;
}

function carriesLiteralCredential(name: string, value: string): boolean {
  const literal = value.replace(SECRET_REF, ' ');
  if (KNOWN_TOKEN.test(literal)) return true;
  const scheme = SCHEME_CREDENTIAL.exec(literal);
  if (scheme && scheme[2].trim().length > 0) return true;
  if (!SENSITIVE_HEADER.test(name)) return false;
  // What is left once references, a scheme word and cookie names are taken out must be separators only.
  const rest = (scheme ? '' : literal).replace(/[\w.-]+=/g, ' ').replace(/[\s;,:]+/g, '');
  return rest.length > 0;
}

/**
 * The problem of a URL that carries a credential: user info (`https://user:pass@host`) or a sensitive query
 * parameter with a literal value (`?api_key=...`; a `{placeholder}` is fine). The value is never echoed. `instead`
 * tells where the credential goes (a header with a secret reference, unless the resource has its own field).
 */
export function urlCredentialProblem(
  url: string,
  field: string,
  instead = `send the credential in a header and ${HOW_TO_REFERENCE}`,
): FieldProblem | null {
  let parsed: URL;
  try {
    parsed = new URL(url.replace(/\{[^}]+\}/g, 'x'));
  } catch {
    return null; // the shape rules report an unparsable URL
  }
  if (parsed.username || parsed.password) {
    return {
      field,
      problems: [`must not carry a user name or password (user:pass@host); ${instead}`],
    };
  }
  const original = safeSearchParams(url);
  for (const [key, value] of original) {
    if (SENSITIVE_QUERY.test(key) && value !== '' && !/^\{[^}]+\}$/.test(value)) {
      return {
        field,
        problems: [`must not carry a credential in its query (parameter "${key}"); ${instead}`],
      };
    }
  }
  return null;
}

/**
 * The literal credentials a URL carries, decoded: its password and the values of its sensitive query parameters (as
 * {@link urlCredentialProblem} finds them), for hiding wherever the remote could echo them back.
 */
export function urlCredentialValues(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const values = parsed.password ? [parsed.password, decodedOrSame(parsed.password)] : [];
  for (const [key, value] of parsed.searchParams) if (SENSITIVE_QUERY.test(key) && value !== '') values.push(value);
  return values;
}

function decodedOrSame(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // a stray % the URL parser kept as it was
  }
}

function safeSearchParams(url: string): URLSearchParams {
  const q = url.indexOf('?');
  if (q < 0) return new URLSearchParams();
  const hash = url.indexOf('#', q);
  return new URLSearchParams(url.slice(q + 1, hash < 0 ? undefined : hash));
}
