import type { ChecklistSettings, ChecklistTool, ToolChecklistItem } from './tool-checklist.types';

type Raw = Record<string, unknown>;
const isRaw = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Descriptions that list choices in prose: an `enum` says it to the model and to validation. */
const CHOICES_IN_PROSE = /\b(one of|either|allowed values|possible values|valid values)\b|\w\s*\|\s*\w/i;
const SENSITIVE_NAME = /pass(word|wd)?|secret|token|api[-_]?key|credential|private[-_]?key|ssn|card[-_]?number|cvv/i;
const CHANGING_NAME = /^(create|delete|remove|update|send|write|post|put|patch|set|insert|drop|pay|transfer|cancel)/i;
const WRITING_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** REQUIRED_EXPLICIT: the root lists `required` (an empty list says "all optional" on purpose). */
export function requiredExplicit(tool: ChecklistTool): ToolChecklistItem {
  const properties = isRaw(tool.parameters.properties) ? Object.keys(tool.parameters.properties) : [];
  if (properties.length === 0 || Array.isArray(tool.parameters.required)) {
    return { check: 'REQUIRED_EXPLICIT', status: 'PASS', message: 'The schema says which properties are required.' };
  }
  return {
    check: 'REQUIRED_EXPLICIT',
    status: 'WARN',
    message: `No "required" list: ${properties.join(', ')} all count as optional. List the required ones (or [] when none is).`,
  };
}

/** ENUMS_EXPLICIT: string properties whose description lists choices carry an `enum`. */
export function enumsExplicit(tool: ChecklistTool): ToolChecklistItem {
  const suspects: string[] = [];
  walkProperties(tool.parameters, '', (path, schema) => {
    if (
      schema.type === 'string' &&
      schema.enum === undefined &&
      schema.const === undefined &&
      typeof schema.description === 'string' &&
      CHOICES_IN_PROSE.test(schema.description)
    ) {
      suspects.push(path);
    }
  });
  if (suspects.length === 0)
    return { check: 'ENUMS_EXPLICIT', status: 'PASS', message: 'No property lists its choices in prose only.' };
  return {
    check: 'ENUMS_EXPLICIT',
    status: 'WARN',
    message: `${suspects.join(', ')}: the description lists choices; declare them as an "enum" so models and validation see them.`,
  };
}

export function sideEffectDeclared(tool: ChecklistTool): ToolChecklistItem {
  const looksWriting =
    (tool.httpMethod !== null && WRITING_METHODS.has(tool.httpMethod)) || CHANGING_NAME.test(tool.name);
  if (tool.sideEffect === 'READ_ONLY' && looksWriting) {
    return {
      check: 'SIDE_EFFECT_DECLARED',
      status: 'WARN',
      message: `Declared READ_ONLY, but its ${tool.httpMethod && WRITING_METHODS.has(tool.httpMethod) ? `method ${tool.httpMethod}` : 'name'} suggests it changes things: declare IDEMPOTENT, SIDE_EFFECT or HIGH_RISK if it does.`,
    };
  }
  return { check: 'SIDE_EFFECT_DECLARED', status: 'PASS', message: `Declared ${tool.sideEffect}.` };
}

export function hitlText(tool: ChecklistTool): ToolChecklistItem {
  const needs = tool.sideEffect === 'HIGH_RISK' || tool.sideEffect === 'SIDE_EFFECT';
  if (!needs) return { check: 'HITL_TEXT', status: 'PASS', message: `${tool.sideEffect} tools need no approval text.` };
  if (tool.hitl?.approvalText)
    return { check: 'HITL_TEXT', status: 'PASS', message: "Approvers see the tool's approvalText." };
  return {
    check: 'HITL_TEXT',
    status: tool.sideEffect === 'HIGH_RISK' ? 'FAIL' : 'WARN',
    message: `${tool.sideEffect} tool without hitl.approvalText: ${tool.sideEffect === 'HIGH_RISK' ? 'every call waits for approval' : 'calls wait for approval under APPROVE_SIDE_EFFECTS'}, and the approver should read what it does. Set hitl.approvalText.`,
  };
}

export function timeout(tool: ChecklistTool, settings: ChecklistSettings): ToolChecklistItem {
  if (tool.timeoutMs && tool.timeoutMs > 0)
    return {
      check: 'TIMEOUT',
      status: 'PASS',
      message: `Each call gets ${tool.timeoutMs} ms in all, retries included.`,
    };
  return {
    check: 'TIMEOUT',
    status: 'WARN',
    message: `No timeoutMs: TOOL_DEFAULT_TIMEOUT_MS (${settings.toolDefaultTimeoutMs} ms) applies. Set one the remote can meet.`,
  };
}

export function idempotency(tool: ChecklistTool, settings: ChecklistSettings): ToolChecklistItem {
  const attempts = `up to ${settings.toolMaxAttempts} attempts`;
  if (tool.sideEffect === 'READ_ONLY' || tool.sideEffect === 'IDEMPOTENT') {
    return {
      check: 'IDEMPOTENCY',
      status: 'PASS',
      message: `Declared ${tool.sideEffect}: ${attempts} are safe to repeat.`,
    };
  }
  if (tool.serviceType === 'HTTP') {
    return {
      check: 'IDEMPOTENCY',
      status: 'PASS',
      message: `${attempts}; every attempt carries the same Idempotency-Key (from tenant, session and tool call id): the remote must honour it.`,
    };
  }
  if (tool.serviceType === 'MCP_REMOTE' || tool.serviceType === 'MCP_NACOS') {
    return {
      check: 'IDEMPOTENCY',
      status: 'WARN',
      message: `${attempts}; each carries the same params._meta (tenant, session, tool call id, idempotency key): the MCP server must dedupe by it, MCP has no standard for it.`,
    };
  }
  return {
    check: 'IDEMPOTENCY',
    status: 'WARN',
    message: `${attempts} run in-process: the provider method must tolerate a repeat of a ${tool.sideEffect} call.`,
  };
}

export function tenantScope(tool: ChecklistTool): ToolChecklistItem {
  const carried =
    tool.serviceType === 'HTTP'
      ? 'X-Tenant-Id, X-User-Id, X-Session-Id and X-Tool-Call-Id headers'
      : tool.serviceType.startsWith('MCP')
        ? 'params._meta with tenant, user, session and tool call id'
        : 'the invocation context (tenant, user, session, tool call id)';
  if (tool.tenantId === null) {
    return {
      check: 'TENANT_SCOPE',
      status: 'WARN',
      message: `Platform-wide: every tenant may bind it. The remote receives ${carried} and must keep tenants apart.`,
    };
  }
  return {
    check: 'TENANT_SCOPE',
    status: 'PASS',
    message: `Tenant ${tool.tenantId} only; the remote receives ${carried}.`,
  };
}

export function redaction(tool: ChecklistTool): ToolChecklistItem {
  const covered = new Set((tool.result?.redactFields ?? []).map((f) => f.toLowerCase()));
  const exposed: string[] = [];
  walkProperties(tool.parameters, '', (path, _schema, name) => {
    if (SENSITIVE_NAME.test(name) && !covered.has(name.toLowerCase()) && !covered.has(path.toLowerCase()))
      exposed.push(path);
  });
  if (exposed.length === 0)
    return {
      check: 'REDACTION',
      status: 'PASS',
      message: 'No sensitive-looking property is left out of result.redactFields.',
    };
  return {
    check: 'REDACTION',
    status: 'WARN',
    message: `${exposed.join(', ')} look sensitive: add them to result.redactFields so logs and stored results never show them.`,
  };
}

export function resultSize(tool: ChecklistTool, settings: ChecklistSettings): ToolChecklistItem {
  const cap = tool.result?.maxInlineChars;
  if (cap)
    return {
      check: 'RESULT_SIZE',
      status: 'PASS',
      message: `Results over ${cap} characters come back truncated, paged with READ_TOOL_RESULT.`,
    };
  return {
    check: 'RESULT_SIZE',
    status: 'PASS',
    message: `RESULT_DEFAULT_MAX_INLINE_CHARS (${settings.resultDefaultMaxInlineChars}) applies: larger results come back truncated, paged with READ_TOOL_RESULT.`,
  };
}

/** Visits every named property at any depth (through items and combinators), with its dotted path. */
function walkProperties(
  schema: unknown,
  prefix: string,
  visit: (path: string, schema: Raw, name: string) => void,
  depth = 0,
): void {
  if (!isRaw(schema) || depth > 32) return;
  if (isRaw(schema.properties)) {
    for (const [name, child] of Object.entries(schema.properties)) {
      const path = prefix ? `${prefix}.${name}` : name;
      if (isRaw(child)) visit(path, child, name);
      walkProperties(child, path, visit, depth + 1);
    }
  }
  if (isRaw(schema.items)) walkProperties(schema.items, `${prefix}[]`.replace(/^\[\]/, '[]'), visit, depth + 1);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(schema[key]))
      for (const member of schema[key] as unknown[]) walkProperties(member, prefix, visit, depth + 1);
  }
}
