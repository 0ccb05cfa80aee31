import type { FromSchema } from '@app/common/http/json-schema.type';
import { SAFE_LINE_PATTERN } from '@app/common/safe-text';
import { TOOL_REQUIREMENTS } from '@app/modules/tool-registry/tool-registry.types';
import { CALL_FORMAT_SCHEMA } from './call-format.schema';

/**
 * The executeDirect body, described once: ajv validates requests against it, Swagger shows it (component
 * ExecuteDirectBody) and {@link ExecuteDirectBody} is derived from it (see SchemaBody).
 */
export const EXECUTE_DIRECT_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['agentId', 'userId', 'permissions', 'arguments'],
  properties: {
    agentId: {
      type: 'string',
      minLength: 1,
      maxLength: 36,
      description:
        'The agent the call is made for: the call is checked against its bindings and policies (being in the registry never makes a tool callable, only a binding does)',
    },
    userId: { type: 'string', minLength: 1, maxLength: 128, pattern: SAFE_LINE_PATTERN, example: 'u-42' },
    permissions: { type: 'array', maxItems: 1000, items: { type: 'string', minLength: 1, maxLength: 128 } },
    arguments: { anyOf: [{ type: 'object' }, { type: 'string' }], description: 'An object, or a JSON string of one' },
    capabilities: { type: 'array', items: { enum: TOOL_REQUIREMENTS } },
    toolCallId: {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      description:
        "The call's id (default: generated): remotes receive it as X-Tool-Call-Id, and an Idempotency-Key derived from it and the tenant",
    },
    format: CALL_FORMAT_SCHEMA,
  },
} as const;

/** The executeDirect body as validated. */
export type ExecuteDirectBody = FromSchema<typeof EXECUTE_DIRECT_BODY_SCHEMA>;
