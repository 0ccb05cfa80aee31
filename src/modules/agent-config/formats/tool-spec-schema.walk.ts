/** Helpers the per-provider converters and validators share to walk a JSON Schema. */

export type RawSchema = Record<string, unknown>;

export function isRawSchema(value: unknown): value is RawSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Keywords whose value is one subschema. */
const SINGLE_SUBSCHEMA_KEYWORDS = [
  'items',
  'additionalItems',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
] as const;
/** Keywords whose value is a list of subschemas. */
export const LIST_SUBSCHEMA_KEYWORDS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
/** Keywords whose value maps names to subschemas. */
export const MAP_SUBSCHEMA_KEYWORDS = [
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
] as const;

const SUBSCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  ...SINGLE_SUBSCHEMA_KEYWORDS,
  ...LIST_SUBSCHEMA_KEYWORDS,
  ...MAP_SUBSCHEMA_KEYWORDS,
]);

/**
 * The characters of JSON `schema` writes besides its subschemas (its descriptions, enum values, defaults...): what each
 * copy of it adds to a spec when refs are inlined. A rewrite that inlines refs adds these up against
 * {@link MAX_INLINED_SCHEMA_TEXT}, which also bounds the work this takes.
 */
export function ownSchemaText(schema: RawSchema): number {
  let size = 0;
  for (const [key, value] of Object.entries(schema)) {
    if (SUBSCHEMA_KEYWORDS.has(key)) continue;
    size += key.length + (typeof value === 'string' ? value.length : (JSON.stringify(value)?.length ?? 0));
  }
  return size;
}

/**
 * The most characters (descriptions, enum values, defaults..., see {@link ownSchemaText}) a rewrite that inlines refs
 * writes for one tool: four times what a stored schema may hold (60,000 bytes). Without it a schema well under that
 * cap, whose refs double at every level, would be sent as megabytes (one of 54 KB became a 98 MB Gemini spec), which
 * the provider refuses, with the whole request.
 */
export const MAX_INLINED_SCHEMA_TEXT = 240_000;

/**
 * Every direct subschema of `schema` with the tokens that step to it (`['properties', 'x']`, `['anyOf', 0]`), as a
 * JSON pointer writes them (see {@link childPointer}).
 */
export function childSchemas(schema: RawSchema): [(string | number)[], unknown][] {
  const out: [(string | number)[], unknown][] = [];
  for (const key of SINGLE_SUBSCHEMA_KEYWORDS) {
    const value = schema[key];
    if (Array.isArray(value)) value.forEach((member, i) => out.push([[key, i], member]));
    else if (value !== undefined) out.push([[key], value]);
  }
  for (const key of LIST_SUBSCHEMA_KEYWORDS) {
    const value = schema[key];
    if (Array.isArray(value)) value.forEach((member, i) => out.push([[key, i], member]));
  }
  for (const key of MAP_SUBSCHEMA_KEYWORDS) {
    const value = schema[key];
    if (isRawSchema(value)) for (const [name, member] of Object.entries(value)) out.push([[key, name], member]);
  }
  return out;
}

/**
 * Pushes `items` onto a walk's `stack` so that they pop in their own order (document order). A loop, not
 * `stack.push(...items.reverse())`: spreading a node's children as arguments overflows the call stack past about
 * 100,000 of them (a schema of that many properties or union members is a 2 MB request body).
 */
export function pushToPopInOrder<T>(stack: T[], items: readonly T[]): void {
  for (let i = items.length - 1; i >= 0; i--) stack.push(items[i]);
}

/**
 * Visits `root` and every subschema below it once, in document order, with its JSON pointer (from `at`). A node's
 * children are taken before it is visited, so `visit` may rewrite the node in place (rename its keys, replace its
 * members) and each child still gets the pointer it has in the tree as it was. Returns how many nodes it visited.
 */
export function rewriteEachSchema(
  root: RawSchema,
  visit: (node: RawSchema, pointer: string) => void,
  at = '#',
): number {
  const seen = new Set<object>();
  const stack: [RawSchema, string][] = [[root, at]];
  while (stack.length > 0) {
    const [node, pointer] = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    const children = childSchemas(node)
      .filter((entry): entry is [(string | number)[], RawSchema] => isRawSchema(entry[1]))
      .map(([tokens, child]): [RawSchema, string] => [child, childPointer(pointer, ...tokens)]);
    visit(node, pointer);
    pushToPopInOrder(stack, children);
  }
  return seen.size;
}

/**
 * The JSON pointer (RFC 6901, in its `#` fragment form as `$ref` writes it) of a child of the schema node at `parent`:
 * `childPointer('#', 'properties', 'a/b')` is `#/properties/a~1b`. Every format's warnings name nodes this way.
 */
export function childPointer(parent: string, ...tokens: (string | number)[]): string {
  return [parent, ...tokens.map((token) => String(token).replace(/~/g, '~0').replace(/\//g, '~1'))].join('/');
}

/** The text of one token of a JSON pointer (RFC 6901: `~1` is `/`, `~0` is `~`), the reverse of {@link childPointer}. */
export function pointerTokenText(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The types a schema declares (`type` as a string or a list), empty when it declares none. */
export function declaredTypes(schema: RawSchema): string[] {
  if (typeof schema.type === 'string') return [schema.type];
  return Array.isArray(schema.type) ? schema.type.filter((t): t is string => typeof t === 'string') : [];
}

export const JSON_SCHEMA_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);

/** Whether `value` is of one of the JSON Schema `types` (`number` takes integers too). */
export function typesTake(types: readonly string[], value: unknown): boolean {
  return types.some((type) => {
    if (type === 'null') return value === null;
    if (type === 'integer') return Number.isInteger(value);
    if (type === 'array') return Array.isArray(value);
    if (type === 'object') return isRawSchema(value);
    return typeof value === type;
  });
}

/** How JSON.stringify writes a lone surrogate (and only a lone one: pairs stay characters), unless the backslash is escaped. */
const LONE_SURROGATE_ESCAPE = /(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g;

/**
 * `value` and its JSON text, with every lone surrogate anywhere in it (a property's description, an enum value: an MCP
 * server's text cut mid-character, an admin's `\ud83d` escape) replaced by U+FFFD: OpenAI and Anthropic refuse a whole
 * request holding one ("no low surrogate in string").
 */
export function wellFormedJson<T>(value: T): { value: T; json: string } {
  const json = JSON.stringify(value);
  if (!json.includes('\\ud')) return { value, json };
  const fixed = json.replace(LONE_SURROGATE_ESCAPE, '$1\uFFFD');
  return fixed === json ? { value, json } : { value: JSON.parse(fixed) as T, json: fixed };
}
