/** Helpers shared by the model-format specs (not a spec itself). */

/** Freezes a value and everything under it, so a mutation by the code under test throws. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

const GEMINI_KEYWORDS = new Set([
  'type', 'format', 'title', 'description', 'nullable', 'enum', 'properties', 'required', 'items', 'anyOf',
  'minimum', 'maximum', 'minItems', 'maxItems', 'minLength', 'maxLength', 'pattern',
]);
const GEMINI_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);

/**
 * Every way `schema` breaks the Gemini subset, as `path: problem`, walking each schema position
 * (the root, property values, `items`, `anyOf` members) at any depth. Empty when it is clean.
 */
export function geminiViolations(schema: unknown, path = '$'): string[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [`${path}: not a schema object`];
  const s = schema as Record<string, unknown>;
  const problems = Object.keys(s).filter((k) => !GEMINI_KEYWORDS.has(k)).map((k) => `${path}: keyword ${k}`);
  if (s.type !== undefined && !GEMINI_TYPES.has(s.type as string)) problems.push(`${path}: type ${JSON.stringify(s.type)}`);
  if (s.enum !== undefined) {
    if (s.type !== 'string') problems.push(`${path}: enum on type ${String(s.type)}`);
    if (!Array.isArray(s.enum) || s.enum.some((v) => typeof v !== 'string')) problems.push(`${path}: non-string enum`);
  }
  if (s.type === 'array' && s.items === undefined) problems.push(`${path}: array without items`);
  if (s.nullable !== undefined && s.nullable !== true) problems.push(`${path}: nullable ${String(s.nullable)}`);
  const properties = (s.properties ?? {}) as Record<string, unknown>;
  for (const name of (s.required ?? []) as string[]) {
    if (!Object.hasOwn(properties, name)) problems.push(`${path}: required ${name} is not a property`);
  }
  for (const [name, child] of Object.entries(properties)) problems.push(...geminiViolations(child, `${path}.properties.${name}`));
  if (s.items !== undefined) problems.push(...geminiViolations(s.items, `${path}.items`));
  for (const [i, member] of ((s.anyOf ?? []) as unknown[]).entries()) problems.push(...geminiViolations(member, `${path}.anyOf[${i}]`));
  return problems;
}

/** How many schema positions the result holds (to check that inlining stays bounded). */
export function countSchemaNodes(schema: Record<string, unknown>): number {
  let count = 1;
  for (const child of Object.values((schema.properties ?? {}) as Record<string, Record<string, unknown>>)) count += countSchemaNodes(child);
  if (schema.items) count += countSchemaNodes(schema.items as Record<string, unknown>);
  for (const member of (schema.anyOf ?? []) as Record<string, unknown>[]) count += countSchemaNodes(member);
  return count;
}
