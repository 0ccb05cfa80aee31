import type { JsonSchema } from '@app/modules/tool-registry/tool-registry.types';
import { GeminiSchemaRefResolver } from './gemini-schema-ref.resolver';
import { declaredTypes, isRawSchema, type RawSchema } from './tool-spec-schema.walk';

/**
 * The one property of the Gemini spec of a tool whose arguments are a map: Gemini has no schema for an object without
 * properties ("properties should be non-empty for OBJECT type"), so the model sends the map as JSON text in it, as it
 * sends a map below the root, and the argument reviver takes that object as the arguments.
 */
export const GEMINI_ROOT_MAP_PROPERTY = 'arguments_json';

/**
 * The schema of a tool's arguments when they are a map and nothing else: no properties of their own, and values under
 * `additionalProperties` (a schema or `true`) or `patternProperties`; undefined otherwise (a bare `{type: "object"}`
 * takes no arguments). A root that is only a local `$ref` (`{$ref: "#/definitions/Args", definitions: {...}}`, as
 * zod-to-json-schema writes a named schema) is judged by what it points to.
 */
export function rootMapOf(schema: JsonSchema): JsonSchema | undefined {
  const root = loneRefTarget(schema) ?? schema;
  // `type: ["object", "null"]` too: Gemini's root is an object whatever else the schema allows.
  const types = declaredTypes(root).filter((type) => type !== 'null');
  if (root.type !== undefined && (types.length !== 1 || types[0] !== 'object')) return undefined;
  if (isRawSchema(root.properties) && Object.keys(root.properties).length > 0) return undefined;
  if (['$ref', 'allOf', 'anyOf', 'oneOf'].some((key) => root[key] !== undefined)) return undefined;
  const additional = root.additionalProperties;
  const patterns = root.patternProperties;
  const map =
    additional === true || isRawSchema(additional) || (isRawSchema(patterns) && Object.keys(patterns).length > 0);
  return map ? root : undefined;
}

/**
 * What an alternative of a root union is when it has no properties to lay out but does take keys: a map (see
 * {@link rootMapOf}) or a free-form object (`{type: "object"}` alone); undefined for anything else (an alternative
 * that only constrains the root's own properties, `{required: ["a"]}`, or one that takes no object).
 */
export function keysOnlyAlternative(member: RawSchema): 'a map' | 'a free-form object' | undefined {
  if (rootMapOf(member)) return 'a map';
  const types = declaredTypes(member);
  const freeForm =
    types.length === 1 &&
    types[0] === 'object' &&
    !(isRawSchema(member.properties) && Object.keys(member.properties).length > 0) &&
    member.required === undefined &&
    member.additionalProperties !== false;
  return freeForm ? 'a free-form object' : undefined;
}

const SHAPE_KEYWORDS = ['type', 'properties', 'additionalProperties', 'patternProperties', 'allOf', 'anyOf', 'oneOf'];

function loneRefTarget(schema: JsonSchema): JsonSchema | undefined {
  if (typeof schema.$ref !== 'string' || SHAPE_KEYWORDS.some((key) => schema[key] !== undefined)) return undefined;
  const target = new GeminiSchemaRefResolver(schema).resolve(schema.$ref);
  return isRawSchema(target) && target !== schema ? target : undefined;
}
