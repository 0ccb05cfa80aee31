import type { ToolDescriptor } from '../tool-registry.types';

/** The checks of the new-tool checklist (contract v2), in the order they are answered. */
export const TOOL_CHECKS = [
  'SCHEMA_VALID',
  'MODEL_OPENAI',
  'MODEL_OPENAI_STRICT',
  'MODEL_ANTHROPIC',
  'MODEL_GEMINI',
  'REQUIRED_EXPLICIT',
  'ENUMS_EXPLICIT',
  'SIDE_EFFECT_DECLARED',
  'HITL_TEXT',
  'TIMEOUT',
  'IDEMPOTENCY',
  'TENANT_SCOPE',
  'REDACTION',
  'RESULT_SIZE',
] as const;
export type ToolCheck = (typeof TOOL_CHECKS)[number];
export const CHECK_STATUSES = ['PASS', 'WARN', 'FAIL'] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];

export interface ToolChecklistItem {
  check: ToolCheck;
  status: CheckStatus;
  message: string;
}

/** `ok` is false when any item FAILs. */
export interface ToolChecklist {
  ok: boolean;
  items: ToolChecklistItem[];
}

/** What the checks read: a stored tool, or a definition not stored (POST .../checklist). */
export type ChecklistTool = Pick<
  ToolDescriptor,
  | 'name'
  | 'description'
  | 'parameters'
  | 'serviceType'
  | 'endpoint'
  | 'httpMethod'
  | 'headers'
  | 'timeoutMs'
  | 'sideEffect'
  | 'hitl'
  | 'result'
  | 'tenantId'
>;

/** The settings the checks quote (defaults that apply when the tool sets nothing). */
export interface ChecklistSettings {
  toolDefaultTimeoutMs: number;
  toolMaxAttempts: number;
  resultDefaultMaxInlineChars: number;
}
