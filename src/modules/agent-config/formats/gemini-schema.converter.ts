import { JsonSchema } from '@app/modules/tool-registry/tool-registry.types';
import { GeminiSchemaDraftBuilder } from './gemini-schema-draft.builder';
import { finalizeGeminiSchema } from './gemini-schema-draft.finalizer';

/**
 * A JSON Schema rewritten into the OpenAPI 3.0 subset Gemini function declarations accept. At any
 * depth the result has no `$schema`, `$id`, `$defs`/`definitions`/`$ref` (local refs are inlined;
 * a recursive one is cut to `{type:'object', description:'(recursive)'}`), `additionalProperties`,
 * `const` (an enum of one), null unions or type arrays (`nullable: true` instead), `allOf` (merged),
 * `oneOf` (an `anyOf`) or any other keyword outside the Gemini subset. The input is not mutated and
 * shares no object with the result. Work is linear in the size of the inlined schema, which is
 * bounded by `GEMINI_MAX_SCHEMA_NODES`.
 */
export function toGeminiSchema(schema: JsonSchema): JsonSchema {
  return finalizeGeminiSchema(new GeminiSchemaDraftBuilder(schema).build());
}
