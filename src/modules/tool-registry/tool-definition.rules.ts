import type { FieldProblem } from '@app/common/errors/validation';
import type { ServiceType } from './tool-registry.types';
import { isToolContextHeader } from './tool-context.headers';

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

function isProviderMethod(endpoint: string): boolean {
  return /^[A-Za-z_$][\w$]*\.[A-Za-z_$][\w$]*$/.test(endpoint);
}

const SECRET_REF = /\$\{secret:[A-Za-z0-9_]+\}/;
const SENSITIVE_HEADER = /authorization|cookie|token|secret|api[-_]?key|password/i;

/** Cross-field rules of a tool definition that a DTO cannot express. */
export function checkToolDefinition(def: { serviceType: ServiceType; endpoint: string; headers?: Record<string, string> | null }): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const rule = ENDPOINT_RULES[def.serviceType];
  if (!rule.test(def.endpoint)) problems.push({ field: 'endpoint', problems: [`for serviceType ${def.serviceType} must be ${rule.expected}`] });
  if (def.headers) {
    if (def.serviceType !== 'HTTP' && def.serviceType !== 'MCP_REMOTE') {
      problems.push({ field: 'headers', problems: ['are only used by HTTP and MCP_REMOTE tools'] });
    }
    for (const [name, value] of Object.entries(def.headers)) {
      if (typeof value !== 'string' || !/^[A-Za-z0-9-]{1,128}$/.test(name)) {
        problems.push({ field: `headers.${name}`, problems: ['must be a header name (letters, digits, -) with a string value'] });
      } else if (SENSITIVE_HEADER.test(name) && !SECRET_REF.test(value)) {
        problems.push({ field: `headers.${name}`, problems: ['looks like a credential: reference it as ${secret:NAME} (set NAME=value in TOOL_SECRETS) instead of storing it'] });
      }
      if (isToolContextHeader(name)) {
        problems.push({ field: `headers.${name}`, problems: ['is set by the gateway on every call (the caller\'s tenant, user, session, tool call and idempotency key); remove it from the tool\'s headers'] });
      }
    }
  }
  return problems;
}
