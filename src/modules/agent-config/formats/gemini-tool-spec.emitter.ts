import { JsonSchema } from '@app/modules/tool-registry/tool-registry.types';
import { toGeminiSchema } from './gemini-schema.converter';
import { GEMINI_OBJECT_AS_TEXT_NOTE } from './gemini-schema-draft.finalizer';
import { GEMINI_ROOT_MAP_PROPERTY, rootMapOf } from './gemini-root-map';
import { GeminiToolSpec, ToolSpecSource } from './model-format.types';
import { unitedMemberProperties } from './portable-json-schema.converter';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Gemini needs an OBJECT at the root. A root union of objects (`anyOf: [{...}, {...}]`) would leave
 * the root with no properties at all, so its members' properties are laid out side by side instead (a name
 * the members define differently takes any of their schemas); a name is required only when every member
 * requires it. A member without properties (a map or a free-form object, which the converter turned into JSON
 * text, or a value that is no object) has nothing to lay out and is lost: each loss, and the layout itself, is a
 * warning the admin sees (checklist MODEL_GEMINI, explained tool-specs).
 */
function toObjectRoot(schema: JsonSchema): { schema: JsonSchema; warnings: string[] } {
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
  return { schema: out, warnings: rootUnionWarnings(members) };
}

function rootUnionWarnings(members: Record<string, unknown>[]): string[] {
  if (members.length === 0) return [];
  const warnings = [
    `root union of ${members.length} alternatives laid out as one object: Gemini is not told which arguments go together`,
  ];
  members.forEach((member, i) => {
    if (isPlainObject(member.properties) && Object.keys(member.properties).length > 0) return;
    warnings.push(
      `root union alternative ${i + 1} (${memberKind(member)}) dropped: Gemini cannot declare it, so the model cannot send it`,
    );
  });
  return warnings;
}

/** What a root union member without properties was, from what the converter made of it. */
function memberKind(member: Record<string, unknown>): string {
  if (typeof member.description === 'string' && member.description.includes(GEMINI_OBJECT_AS_TEXT_NOTE))
    return 'an object without properties: a map or a free-form object';
  return typeof member.type === 'string' ? `a value of type ${member.type.toLowerCase()}` : 'a value of any type';
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
 * {@link GEMINI_ROOT_MAP_PROPERTY} (without it the model could pass nothing). `warnings`: what of the schema the
 * model cannot see or send (a root union's layout and the alternatives it drops); the stand-ins the model fills as
 * JSON text are no warning here (the checklist names them).
 */
export function emitGeminiToolSpec(tool: ToolSpecSource): { spec: GeminiToolSpec; warnings: string[] } {
  const { name, description } = tool;
  const map = rootMapOf(tool.parameters);
  if (map) return { spec: { name, description, parameters: rootMapParameters(map) }, warnings: [] };
  const { schema: parameters, warnings } = toObjectRoot(toGeminiSchema(tool.parameters));
  const properties = parameters.properties;
  if (!isPlainObject(properties) || Object.keys(properties).length === 0)
    return { spec: { name, description }, warnings };
  return { spec: { name, description, parameters }, warnings };
}

/** {@link emitGeminiToolSpec}'s spec alone. */
export function toGeminiToolSpec(tool: ToolSpecSource): GeminiToolSpec {
  return emitGeminiToolSpec(tool).spec;
}
