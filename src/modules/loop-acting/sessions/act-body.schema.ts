import type { FromSchema } from '@app/common/http/json-schema.type';
import { CALL_FORMAT_SCHEMA } from '@app/modules/tool-invocation/call-format.schema';

/** Tool calls one `act` takes: a request with more is a 400; the gateway's own loop runs no more of one answer. */
export const MAX_TOOL_CALLS_PER_ACT = 64;

/**
 * The `act` body, described once: ajv validates requests against it, Swagger shows it (component ActBody)
 * and {@link ActBody} is derived from it (see SchemaBody).
 */
export const ACT_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['iteration', 'toolCalls'],
  properties: {
    iteration: {
      type: 'integer',
      minimum: 0,
      maximum: 1_000_000,
      description: "The runtime's loop iteration; lower than the session's → 409 STALE_ITERATION",
    },
    toolCalls: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_TOOL_CALLS_PER_ACT,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'name', 'arguments'],
        properties: {
          id: {
            type: 'string',
            minLength: 1,
            maxLength: 120,
            pattern: '^[\\x21-\\x7e]+$',
            description: "The model's tool call id: the idempotency key",
          },
          name: { type: 'string', minLength: 1, maxLength: 64 },
          arguments: {
            anyOf: [{ type: 'object' }, { type: 'string' }],
            description: 'An object, or a JSON string of one',
          },
        },
      },
    },
    format: CALL_FORMAT_SCHEMA,
  },
} as const;

/** The `act` body as validated. */
export type ActBody = FromSchema<typeof ACT_BODY_SCHEMA>;
