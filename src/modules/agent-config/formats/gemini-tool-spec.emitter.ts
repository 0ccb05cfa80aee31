import { JsonSchema } from '@app/modules/tool-registry/tool-registry.types';
import { toGeminiSchema } from './gemini-schema.converter';
import { GEMINI_OBJECT_AS_TEXT_NOTE } from './gemini-schema-draft.finalizer';
import { GEMINI_ROOT_MAP_PROPERTY, rootMapOf } from './gemini-root-map';
import { geminiRootUnionWarnings } from './gemini-root-union';
import { GeminiToolSpec, ToolSpecSource } from './model-format.types';
import { unitedMemberProperties } from './portable-json-schema.converter';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Gemini needs an OBJECT at the root. A root union of objects (`anyOf: [{...}, {...}]`) would leave
 * the root with no properties at all, so its members' properties are laid out side by side instead (a name
 * the members define differently takes any of their schemas); a name is required only when every member
 * requires it. `laidOut`: how many members were (see {@link geminiRootUnionWarnings} for what that loses).
 */
function toObjectRoot(schema: JsonSchema): { schema: JsonSchema; laidOut: number } {
  const { anyOf, nullable: _nullable, ...root } = schema;
  const properties: Record<string, unknown> = {};
  const required = new Set(Array.isArray(root.required) ? (root.required as string[]) : []);
  const members = (Array.isArray(anyOf) ? anyOf : []).filter(isPlainObject);
  Object.assign(properties, unitedMemberProperties(members));
  const alwaysRequired = members.map((m) => (Array.isArray(m.required) ? (m.required as string[]) : []));
  for (const name of alwaysRequired[0] ?? []) {
    if (alwaysRequired.every((names) => names.includes(name))) required.add(name);
  }
  if (isPlainObject(root.properties)) Object.assign(properties, root.properties);
  const out: JsonSchema = { ...root, type: 'object' };
  if (Object.keys(properties).length > 0) out.properties = properties;
  if (required.size > 0) out.required = [...required];
  return { schema: out, laidOut: members.length };
}

/**
 * Arguments that are a map: one required property that takes the map as JSON text (the way a map below the root is
 * sent), which the argument reviver takes as the arguments.
 */
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
 * {@link GEMINI_ROOT_MAP_PROPERTY} (without it the model could pass nothing). `warnings`: what a root union loses
 * ({@link geminiRootUnionWarnings}); the stand-ins the model fills as JSON text are no warning here (the checklist
 * names them).
 */
export function emitGeminiToolSpec(tool: ToolSpecSource): { spec: GeminiToolSpec; warnings: string[] } {
  const { name, description } = tool;
  const map = rootMapOf(tool.parameters);
  if (map) return { spec: { name, description, parameters: rootMapParameters(map) }, warnings: [] };
  const { schema: parameters, laidOut } = toObjectRoot(toGeminiSchema(tool.parameters));
  const warnings = geminiRootUnionWarnings(tool.parameters, laidOut);
  const properties = parameters.properties;
  if (!isPlainObject(properties) || Object.keys(properties).length === 0)
    return { spec: { name, description }, warnings };
  return { spec: { name, description, parameters }, warnings };
}

/** {@link emitGeminiToolSpec}'s spec alone. */
export function toGeminiToolSpec(tool: ToolSpecSource): GeminiToolSpec {
  return emitGeminiToolSpec(tool).spec;
}
