import type { FieldProblem } from '@app/common/errors/validation';
import type { ServiceType } from './tool-registry.types';
import { headerCredentialProblems, urlCredentialProblem } from './tool-credential.rules';
import { isToolContextHeader, isTransportHeader } from './tool-context.headers';
import { tenantSecretRefProblems } from '@app/modules/tenant-secrets/tool-secret.refs';

/**
 * Text an HTTP client sends as a header value (undici refuses the rest): no C0 controls (line breaks too), no DEL,
 * nothing beyond U+00FF. Tab is left out too. Tool and MCP service headers, and the tenant secrets they reference.
 */
export const HEADER_VALUE_TEXT = /^[\u0020-\u007e\u0080-\u00ff]*$/;

const ENDPOINT_RULES: Record<ServiceType, { test: (endpoint: string) => boolean; expected: string }> = {
  HTTP: { test: isHttpUrl, expected: 'an absolute http(s) URL, e.g. https://orders.example.com/orders/{orderId}' },
  MCP_REMOTE: { test: isHttpUrl, expected: 'the MCP server URL, e.g. https://mcp.example.com/mcp' },
  MCP_NACOS: { test: (e) => /^[^@\s]+@[^@\s]+$/.test(e), expected: '"service@group" as registered in Nacos' },
  LOCAL: { test: isProviderMethod, expected: '"Provider.method" of a @Tool provider' },
  FEIGN: { test: isProviderMethod, expected: '"Provider.method" of a @FeignTool provider' },
};

function isHttpUrl(endpoint: string): boolean {
  try {
    const url = new URL(endpoint.replace(/\{[^}]+\}/g, 'x'));
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** A `{...}` in the URL template before its path (in the scheme or the authority), where the executor never fills one. */
function placeholderBeforePath(endpoint: string): boolean {
  const schemeEnd = endpoint.indexOf('://');
  if (schemeEnd < 0) return false;
  const pathStart = endpoint.slice(schemeEnd + 3).search(/[/?#]/);
  return /[{}]/.test(pathStart < 0 ? endpoint : endpoint.slice(0, schemeEnd + 3 + pathStart));
}

function isProviderMethod(endpoint: string): boolean {
  return /^[A-Za-z_$][\w$]*\.[A-Za-z_$][\w$]*$/.test(endpoint);
}

/** Cross-field rules of a tool definition that a DTO cannot express. */
export function checkToolDefinition(def: {
  serviceType: ServiceType;
  endpoint: string;
  headers?: Record<string, string> | null;
  /** The owner: a tenant's tool reads only that tenant's secrets; null or absent, platform-wide. */
  tenantId?: string | null;
}): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const rule = ENDPOINT_RULES[def.serviceType];
  if ((def.serviceType === 'HTTP' || def.serviceType === 'MCP_REMOTE') && placeholderBeforePath(def.endpoint))
    problems.push({
      field: 'endpoint',
      problems: [
        `for serviceType ${def.serviceType} may hold a {placeholder} only in the path and query: the scheme, host and port are fixed at registration (the model never picks where a call goes, so every call would be refused); write them literally`,
      ],
    });
  else if (!rule.test(def.endpoint))
    problems.push({ field: 'endpoint', problems: [`for serviceType ${def.serviceType} must be ${rule.expected}`] });
  else if (def.serviceType === 'HTTP' || def.serviceType === 'MCP_REMOTE') {
    const credential = urlCredentialProblem(def.endpoint, 'endpoint');
    if (credential) problems.push(credential);
  }
  if (def.headers) {
    if (def.serviceType !== 'HTTP' && def.serviceType !== 'MCP_REMOTE') {
      problems.push({
        field: 'headers',
        problems: [`are only used by HTTP and MCP_REMOTE tools, not ${def.serviceType}; leave headers out`],
      });
    }
    problems.push(...checkHeaderTemplates(def.headers, 'headers', def.tenantId ?? null));
  }
  return problems;
}

/**
 * Rules of header templates (tools and MCP services): names of letters, digits and -, string values without
 * line breaks or control characters, no literal credential (only `${secret:NAME}` references), and, for an owner of
 * tenant `tenantId`, only references a tenant secret's name can fill.
 */
export function checkHeaderTemplates(
  headers: Record<string, string>,
  fieldPrefix = 'headers',
  tenantId: string | null = null,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const seen = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    const first = seen.get(name.toLowerCase());
    if (first !== undefined) {
      problems.push({
        field: `${fieldPrefix}.${name}`,
        problems: [`is also given as "${first}" (header names ignore case, so only one would be sent); keep one`],
      });
    } else seen.set(name.toLowerCase(), name);
    if (
      typeof value !== 'string' ||
      !/^[A-Za-z0-9-]{1,128}$/.test(name) ||
      !HEADER_VALUE_TEXT.test(value) ||
      value.length > 8192
    ) {
      problems.push({
        field: `${fieldPrefix}.${name}`,
        problems: [
          'must be a header name (letters, digits, -) with a string value of at most 8192 characters, no line breaks or control characters and none beyond U+00FF',
        ],
      });
    }
    if (isToolContextHeader(name)) {
      problems.push({
        field: `${fieldPrefix}.${name}`,
        problems: [
          "is set by the gateway on every call (the caller's tenant, user, session, tool call and idempotency key); remove it from the headers",
        ],
      });
    }
    if (isTransportHeader(name)) {
      problems.push({
        field: `${fieldPrefix}.${name}`,
        problems: [
          'is set by the HTTP client from the URL and the body (Host would pick another virtual host behind the checked address); remove it from the headers, and change the URL to reach another host',
        ],
      });
    }
  }
  problems.push(...headerCredentialProblems(headers, fieldPrefix));
  problems.push(
    ...tenantSecretRefProblems(
      tenantId,
      Object.fromEntries(Object.entries(headers).map(([name, value]) => [`${fieldPrefix}.${name}`, value])),
    ),
  );
  return problems;
}
