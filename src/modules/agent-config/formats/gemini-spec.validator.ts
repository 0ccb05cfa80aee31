import { childPointer, isRawSchema } from './tool-spec-schema.walk';

/**
 * Gemini API, `FunctionDeclaration` (ai.google.dev/api/caching#FunctionDeclaration): `name` "must start
 * with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores, dots and dashes, with a
 * maximum length of 64"; `parameters` is a `Schema` (ai.google.dev/api/caching#Schema), "a select subset
 * of an OpenAPI 3.0 schema object": only the fields below, `type` one of its `Type` enum, `enum` for
 * STRING with `format: enum`, `nullable` instead of null unions. Observed refusals the docs imply:
 * "properties: should be non-empty for OBJECT type", "items: missing field" for an ARRAY, a node
 * with no `type` (only an `anyOf` node may omit it), and an empty string among enum values ("enum[3]: cannot be
 * empty", reported by opencode and runlore users: some MCP servers list `""` for "unset").
 */
const GEMINI_NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$/;
const GEMINI_SCHEMA_FIELDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'properties',
  'required',
  'items',
  'anyOf',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'minProperties',
  'maxProperties',
  'propertyOrdering',
  'example',
  'default',
]);
const GEMINI_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);

/** Why Gemini would refuse `spec`, as `where: problem` (a field, or a schema node by its JSON pointer); empty when it accepts it. */
export function geminiSpecViolations(spec: unknown): string[] {
  if (!isRawSchema(spec)) return ['spec must be {name, description, parameters?}'];
  const problems: string[] = [];
  if (typeof spec.name !== 'string' || !GEMINI_NAME_PATTERN.test(spec.name))
    problems.push('name: must match ^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$');
  if (spec.description !== undefined && typeof spec.description !== 'string')
    problems.push('description: must be a string');
  if (spec.parameters === undefined) return problems;
  if (isRawSchema(spec.parameters) && spec.parameters.type !== 'object')
    problems.push('#: parameters must have type object');
  problems.push(...geminiSchemaViolations(spec.parameters));
  return problems;
}

/** Every way `schema` breaks the Gemini `Schema` subset, at any depth. */
export function geminiSchemaViolations(schema: unknown, path = '#'): string[] {
  if (!isRawSchema(schema)) return [`${path}: not a schema object`];
  const s = schema;
  const problems = Object.keys(s)
    .filter((k) => !GEMINI_SCHEMA_FIELDS.has(k))
    .map((k) => `${path}: keyword ${k}`);
  if (s.type === undefined && s.anyOf === undefined) problems.push(`${path}: no type`);
  if (s.type !== undefined && !GEMINI_TYPES.has(s.type as string))
    problems.push(`${path}: type ${JSON.stringify(s.type)}`);
  if (s.enum !== undefined) {
    if (s.type !== 'string') problems.push(`${path}: enum on type ${String(s.type)}`);
    if (!Array.isArray(s.enum) || s.enum.some((v) => typeof v !== 'string')) problems.push(`${path}: non-string enum`);
    else if (s.enum.includes('')) problems.push(`${path}: an enum value is the empty string, which Gemini refuses`);
  }
  if (s.type === 'array' && !isRawSchema(s.items)) problems.push(`${path}: array without items`);
  if (s.type === 'object' && (!isRawSchema(s.properties) || Object.keys(s.properties).length === 0)) {
    problems.push(`${path}: object without properties`);
  }
  if (s.nullable !== undefined && typeof s.nullable !== 'boolean')
    problems.push(`${path}: nullable ${JSON.stringify(s.nullable)}`);
  const properties = isRawSchema(s.properties) ? s.properties : {};
  for (const name of Array.isArray(s.required) ? s.required : []) {
    if (typeof name !== 'string' || !Object.hasOwn(properties, name))
      problems.push(`${path}: required ${String(name)} is not a property`);
  }
  for (const [name, child] of Object.entries(properties))
    problems.push(...geminiSchemaViolations(child, childPointer(path, 'properties', name)));
  if (s.items !== undefined) problems.push(...geminiSchemaViolations(s.items, childPointer(path, 'items')));
  if (s.anyOf !== undefined && (!Array.isArray(s.anyOf) || s.anyOf.length === 0))
    problems.push(`${path}: anyOf must be a non-empty list`);
  for (const [i, member] of (Array.isArray(s.anyOf) ? s.anyOf : []).entries())
    problems.push(...geminiSchemaViolations(member, childPointer(path, 'anyOf', i)));
  return problems;
}
