import { JsonSchema } from '@app/modules/tool-registry/tool-registry.types';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A copy of a tool's parameter schema that OpenAI and Anthropic accept as a tool input: the root has
 * `type: 'object'` and a `properties` object (empty when the schema declares none). Everything else
 * passes through unchanged. The input is deep-copied, never mutated: the registry caches it and the
 * caller may hand the result to code that edits it.
 */
export function toObjectRootSchema(schema: JsonSchema): JsonSchema {
  const copy: JsonSchema = isPlainObject(schema) ? structuredClone(schema) : {};
  return {
    ...copy,
    type: 'object',
    properties: isPlainObject(copy.properties) ? copy.properties : {},
  };
}
