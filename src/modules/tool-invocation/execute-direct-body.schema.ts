import { SAFE_LINE_PATTERN } from '@app/common/safe-text';
import { TOOL_REQUIREMENTS, type ToolRequirement } from '@app/modules/tool-registry/tool-registry.types';

/** JSON Schema of the executeDirect body, validated with ajv on the hot path (ExecuteDirectDto documents it). */
export const EXECUTE_DIRECT_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['agentId', 'userId', 'permissions', 'arguments'],
  properties: {
    agentId: { type: 'string', minLength: 1, maxLength: 36 },
    userId: { type: 'string', minLength: 1, maxLength: 128, pattern: SAFE_LINE_PATTERN },
    permissions: { type: 'array', maxItems: 1000, items: { type: 'string', minLength: 1, maxLength: 128 } },
    arguments: { anyOf: [{ type: 'object' }, { type: 'string' }] },
    capabilities: { type: 'array', items: { enum: [...TOOL_REQUIREMENTS] } },
    toolCallId: { type: 'string', minLength: 1, maxLength: 128 },
  },
} as const;

/** The executeDirect body as validated. */
export interface ExecuteDirectBody {
  /** Required (contract v2): the call is checked against this agent's bindings and policies. */
  agentId: string;
  userId: string;
  permissions: string[];
  arguments: Record<string, unknown> | string;
  capabilities?: ToolRequirement[];
  toolCallId?: string;
}
