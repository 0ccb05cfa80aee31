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
  return convertGeminiSchema(schema).schema;
}

/**
 * {@link toGeminiSchema}'s schema, and what the rewrite drops or reshapes at any depth, one warning per node named by
 * its JSON pointer (`#/properties/target`): a second union on one node, keys beside an object's properties, a tuple's
 * positions, a stand-in sent as JSON text, an enum moved into the description. Each warning is given once.
 */
export function convertGeminiSchema(schema: JsonSchema): { schema: JsonSchema; warnings: string[] } {
  const builder = new GeminiSchemaDraftBuilder(schema);
  const draft = builder.build();
  const warnings = [...builder.warnings];
  const out = finalizeGeminiSchema(draft, warnings);
  return { schema: out, warnings: [...new Set(warnings)] };
}
