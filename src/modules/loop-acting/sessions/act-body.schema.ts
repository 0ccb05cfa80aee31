/**
 * JSON Schema of the `act` body, validated with ajv on the hot path (the ActDto class documents the same
 * shape in Swagger; the act e2e suite checks the field-by-field errors).
 */

export const ACT_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['iteration', 'toolCalls'],
  properties: {
    iteration: { type: 'integer', minimum: 0, maximum: 1_000_000 },
    toolCalls: {
      type: 'array',
      minItems: 1,
      maxItems: 64,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'name', 'arguments'],
        properties: {
          id: { type: 'string', minLength: 1, maxLength: 120, pattern: '^[\\x21-\\x7e]+$' },
          name: { type: 'string', minLength: 1, maxLength: 64 },
          arguments: { anyOf: [{ type: 'object' }, { type: 'string' }] },
        },
      },
    },
  },
} as const;

/** The `act` body as validated. */
export interface ActBody {
  iteration: number;
  toolCalls: Array<{ id: string; name: string; arguments: Record<string, unknown> | string }>;
}
