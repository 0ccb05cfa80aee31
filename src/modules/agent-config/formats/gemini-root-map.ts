import type { JsonSchema } from '@app/modules/tool-registry/tool-registry.types';
import { declaredTypes } from './tool-spec-schema.walk';

/**
 * The one property of the Gemini spec of a tool whose arguments are a map: Gemini has no schema for an object without
 * properties ("properties should be non-empty for OBJECT type"), so the model sends the map as JSON text in it, as it
 * sends a map below the root, and the argument reviver takes that object as the arguments.
 */
export const GEMINI_ROOT_MAP_PROPERTY = 'arguments_json';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Whether a tool's arguments are a map and nothing else: no properties of their own, and values under
 * `additionalProperties` (a schema or `true`) or `patternProperties`. A bare `{type: "object"}` takes no arguments.
 */
export function isRootMap(schema: JsonSchema): boolean {
  // `type: ["object", "null"]` too: Gemini's root is an object whatever else the schema allows.
  const types = declaredTypes(schema).filter((type) => type !== 'null');
  if (schema.type !== undefined && (types.length !== 1 || types[0] !== 'object')) return false;
  if (isObject(schema.properties) && Object.keys(schema.properties).length > 0) return false;
  if (['$ref', 'allOf', 'anyOf', 'oneOf'].some((key) => schema[key] !== undefined)) return false;
  const additional = schema.additionalProperties;
  const patterns = schema.patternProperties;
  return additional === true || isObject(additional) || (isObject(patterns) && Object.keys(patterns).length > 0);
}
