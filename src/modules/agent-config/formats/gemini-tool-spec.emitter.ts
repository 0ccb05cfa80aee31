import { JsonSchema } from '@app/modules/tool-registry/tool-registry.types';
import { convertGeminiSchema } from './gemini-schema.converter';
import { GEMINI_OBJECT_AS_TEXT_NOTE } from './gemini-schema-draft.finalizer';
import { GEMINI_ROOT_MAP_PROPERTY, rootMapOf } from './gemini-root-map';
import { geminiRootUnionWarnings } from './gemini-root-union';
import { GeminiToolSpec, ToolSpecSource } from './model-format.types';
import { unitedMemberProperties } from './portable-json-schema.converter';
import { renamePropertyKeys } from './sent-property-key.renamer';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Gemini needs an OBJECT at the root. A root union of objects (`anyOf: [{...}, {...}]`) would leave
 * the root with no properties at all, so its members' properties are laid out side by side instead (a name
 * the members define differently takes any of their schemas); a name is required only when every member
 * requires it. A member that is a union in turn has its members' properties laid out too. `laidOut`: how many members
 * were (see {@link geminiRootUnionWarnings} for what that loses).
 */
function toObjectRoot(schema: JsonSchema): { schema: JsonSchema; laidOut: number } {
  const { anyOf, nullable: _nullable, ...root } = schema;
  const required = new Set(Array.isArray(root.required) ? (root.required as string[]) : []);
  const members = (Array.isArray(anyOf) ? anyOf : []).filter(isPlainObject);
  const alwaysRequired = members.map((m) => (Array.isArray(m.required) ? (m.required as string[]) : []));
  for (const name of alwaysRequired[0] ?? []) {
    if (alwaysRequired.every((names) => names.includes(name))) required.add(name);
  }
  // Spread, not Object.assign: a property named "__proto__" stays a property instead of setting the prototype.
  const properties: Record<string, unknown> = {
    ...unitedMemberProperties(members.flatMap(withNestedMembers)),
    ...(isPlainObject(root.properties) ? root.properties : {}),
  };
  const out: JsonSchema = { ...root, type: 'object' };
  if (Object.keys(properties).length > 0) out.properties = properties;
  if (required.size > 0) out.required = [...required];
  return { schema: out, laidOut: members.length };
}

function withNestedMembers(member: Record<string, unknown>): Record<string, unknown>[] {
  const nested = Array.isArray(member.anyOf) ? member.anyOf.filter(isPlainObject) : [];
  return [member, ...nested.flatMap(withNestedMembers)];
}

/**
 * Arguments that are a map: one required property that takes the map as JSON text (the way a map below the root is
 * sent), which the argument reviver takes as the arguments.
 */
const GEMINI_ROOT_MAP_WARNING = `#: a map, sent as JSON text in its one property ${GEMINI_ROOT_MAP_PROPERTY}`;

function rootMapParameters(schema: JsonSchema): JsonSchema {
  const own = typeof schema.description === 'string' && schema.description ? `${schema.description}\n` : '';
  return {
    type: 'object',
    properties: { [GEMINI_ROOT_MAP_PROPERTY]: { type: 'string', description: `${own}${GEMINI_OBJECT_AS_TEXT_NOTE}` } },
    required: [GEMINI_ROOT_MAP_PROPERTY],
  };
}

/**
 * A tool in Gemini's function-declaration format: `{name, description, parameters}` with the schema
 * rewritten by {@link toGeminiSchema}. A tool without parameters gets no `parameters` key, because
 * Gemini has rejected an OBJECT whose `properties` is empty; a tool whose arguments are a map gets
 * {@link GEMINI_ROOT_MAP_PROPERTY} (without it the model could pass nothing). `warnings`: every node the rewrite
 * drops or reshapes, at any depth, by its JSON pointer ({@link convertGeminiSchema}), and what a root union loses
 * ({@link geminiRootUnionWarnings}), then each property key renamed by {@link renamePropertyKeys} (a name holding half a
 * surrogate pair), by its JSON pointer in the rewritten schema; the checklist's MODEL_GEMINI and explained tool-specs
 * show them.
 */
export function emitGeminiToolSpec(tool: ToolSpecSource): { spec: GeminiToolSpec; warnings: string[] } {
  const { name, description } = tool;
  const map = rootMapOf(tool.parameters);
  if (map)
    return { spec: { name, description, parameters: rootMapParameters(map) }, warnings: [GEMINI_ROOT_MAP_WARNING] };
  const converted = convertGeminiSchema(tool.parameters);
  const { schema: parameters, laidOut } = toObjectRoot(converted.schema);
  const warnings = [...geminiRootUnionWarnings(tool.parameters, laidOut), ...converted.warnings];
  renamePropertyKeys(parameters, 'json', warnings);
  const properties = parameters.properties;
  if (!isPlainObject(properties) || Object.keys(properties).length === 0)
    return { spec: { name, description }, warnings };
  return { spec: { name, description, parameters }, warnings };
}

/** {@link emitGeminiToolSpec}'s spec alone. */
export function toGeminiToolSpec(tool: ToolSpecSource): GeminiToolSpec {
  return emitGeminiToolSpec(tool).spec;
}
