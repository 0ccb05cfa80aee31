import { JsonSchema } from '@app/modules/tool-registry/tool-registry.types';
import { GeminiSchemaRefResolver } from './gemini-schema-ref.resolver';
import { keysOnlyAlternative } from './gemini-root-map';
import {
  RawSchema,
  childPointer,
  childSchemas,
  declaredTypes,
  isRawSchema,
  rewriteEachSchema,
} from './tool-spec-schema.walk';

/** A tool's parameters as OpenAI and Anthropic both accept them, and what had to change to get there. */
export interface PortableSchema {
  schema: JsonSchema;
  /**
   * What was changed and why, one warning per node it was changed at, named by its JSON pointer in the tool's schema
   * (`#/properties/box: ...`; below the root, where a merged or laid-out root put it); empty when nothing was.
   */
  notes: string[];
}

/** Root keywords that OpenAI or Anthropic refuse at the top level and that the rewrite folds away. */
const ROOT_ONLY_DROPPED = [
  'not',
  'enum',
  'const',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'dependentRequired',
  'dependencies',
] as const;

/**
 * The parameter schema rewritten into what OpenAI Chat Completions (non-strict) and Anthropic accept
 * (see openai-spec.validator.ts and anthropic-spec.validator.ts):
 * - the root is one object: a root `$ref` and root `allOf` members are merged into it; a root
 *   `anyOf`/`oneOf` becomes the union of its members' properties, requiring only what every member
 *   requires, and the alternatives are written into the description; root `not`, `enum`, `if`... are dropped
 *   (the gateway still validates arguments against the tool's own schema);
 * - a draft-07 tuple (`items: [...]`) or `prefixItems` becomes `items` of its alternatives, its length
 *   kept with `minItems`/`maxItems`;
 * - an array without `items` gets `items: {}`; a boolean subschema becomes `{}` (true) or `{not: {}}` (false);
 * - `$schema` is dropped (both providers read the schema as 2020-12);
 * - a local `$ref` into a part the rewrite moved (a root union or `allOf` member, a tuple position) is replaced by
 *   its target, rewritten the same way, so no ref is left pointing nowhere.
 * The input is not mutated.
 */
export function toPortableSchema(source: JsonSchema): PortableSchema {
  const root: RawSchema = isRawSchema(source) ? structuredClone(source) : {};
  const notes: string[] = [];
  flattenRoot(root, notes);
  delete root.$schema;
  rewriteTree(root, notes);
  inlineMovedRefs(root, source, notes);
  root.type = 'object';
  if (!isRawSchema(root.properties)) root.properties = {};
  return { schema: root, notes };
}

function flattenRoot(root: RawSchema, notes: string[]): void {
  const refs = new GeminiSchemaRefResolver(structuredClone(root));
  const merged = new Set<unknown>([refs.resolve('#')]); // the root is already in itself
  if (typeof root.$ref === 'string') {
    const ref = root.$ref;
    delete root.$ref;
    mergeObjectInto(root, { $ref: ref }, refs, merged);
  }
  if (Array.isArray(root.allOf)) {
    const members = root.allOf;
    delete root.allOf;
    for (const member of members) if (isRawSchema(member)) mergeObjectInto(root, member, refs, merged);
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (!Array.isArray(root[key])) continue;
    const members = (root[key] as unknown[])
      .map((m, i): [unknown, string] => [resolveMember(m, refs), childPointer('#', key, i)])
      .filter((entry): entry is [RawSchema, string] => isRawSchema(entry[0]));
    delete root[key];
    layOutAlternatives(root, members, key, notes);
  }
  for (const key of ROOT_ONLY_DROPPED) {
    if (root[key] === undefined) continue;
    delete root[key];
    notes.push(
      `${childPointer('#', key)}: dropped, as OpenAI and Anthropic refuse it at the root (the gateway still checks it on each call)`,
    );
  }
}

function resolveMember(member: unknown, refs: GeminiSchemaRefResolver): unknown {
  if (!isRawSchema(member) || typeof member.$ref !== 'string') return member;
  const target = refs.resolve(member.$ref);
  const { $ref: _ref, ...rest } = member;
  return isRawSchema(target) ? { ...structuredClone(target), ...rest } : rest;
}

/**
 * `allOf` semantics for the root: properties and `required` are united (a property both define: both apply). Each
 * ref target is merged once (`merged`): a ref chain or `allOf` that leads back to a schema already merged adds
 * nothing and must not loop (`allOf: [{$ref: "#"}]`, which the registry refuses, may still be in a stored row).
 */
function mergeObjectInto(
  root: RawSchema,
  member: RawSchema,
  refs: GeminiSchemaRefResolver,
  merged: Set<unknown>,
): void {
  const resolved = resolveRefChain(member, refs, merged);
  if (Array.isArray(resolved.allOf))
    for (const inner of resolved.allOf) if (isRawSchema(inner)) mergeObjectInto(root, inner, refs, merged);
  const properties: RawSchema = isRawSchema(root.properties) ? root.properties : {};
  for (const [name, schema] of Object.entries(isRawSchema(resolved.properties) ? resolved.properties : {})) {
    properties[name] = Object.hasOwn(properties, name) ? { allOf: [properties[name], schema] } : schema;
  }
  root.properties = properties;
  const required = new Set([...stringList(root.required), ...stringList(resolved.required)]);
  if (required.size > 0) root.required = [...required];
  if (root.description === undefined && typeof resolved.description === 'string')
    root.description = resolved.description;
  for (const key of ['$defs', 'definitions'] as const) {
    if (isRawSchema(resolved[key])) root[key] = { ...resolved[key], ...(isRawSchema(root[key]) ? root[key] : {}) };
  }
}

/** `member` with the targets of its `$ref` chain under it (its own keywords win), each target taken once. */
function resolveRefChain(member: RawSchema, refs: GeminiSchemaRefResolver, merged: Set<unknown>): RawSchema {
  let out = member;
  while (typeof out.$ref === 'string') {
    const target = refs.resolve(out.$ref);
    const { $ref: _ref, ...rest } = out;
    if (!isRawSchema(target) || merged.has(target)) return rest;
    merged.add(target);
    out = { ...structuredClone(target), ...rest };
  }
  return out;
}

/** `alternatives`: each member of the root union with its JSON pointer. */
function layOutAlternatives(root: RawSchema, alternatives: [RawSchema, string][], key: string, notes: string[]): void {
  if (alternatives.length === 0) return;
  const members = alternatives.map(([member]) => member);
  const properties: RawSchema = isRawSchema(root.properties) ? root.properties : {};
  // Spread, not Object.assign: a property named "__proto__" stays a property instead of setting the prototype.
  root.properties = { ...properties, ...unitedMemberProperties(members, new Set(Object.keys(properties))) };
  const lists = members.map((m) => stringList(m.required));
  const everywhere = lists[0].filter((name) => lists.every((list) => list.includes(name)));
  const required = new Set([...stringList(root.required), ...everywhere]);
  if (required.size > 0) root.required = [...required];
  notes.push(
    `#: root ${key} of ${members.length} alternatives laid out as one object, as OpenAI and Anthropic refuse a union ` +
      'at the root: the model reads which arguments go together in the description only',
  );
  const maps = allowMapKeys(root, alternatives, key, notes);
  const choices = members.map((m, i) => {
    const names =
      stringList(m.required).length > 0
        ? stringList(m.required)
        : Object.keys(isRawSchema(m.properties) ? m.properties : {});
    if (names.length > 0) return `(${names.join(', ')})`;
    return maps.has(m) ? '(a map of other keys)' : `(option ${i + 1})`;
  });
  const rule = `Give ${key === 'oneOf' ? 'exactly one' : 'at least one'} of these argument sets: ${choices.join(' or ')}.`;
  root.description = typeof root.description === 'string' ? `${root.description}\n${rule}` : rule;
}

/**
 * The alternatives of a root union that are maps (no properties; values under `additionalProperties` or
 * `patternProperties`) or free-form objects (any keys) have no properties to lay out: their keys are allowed on the root instead
 * (`additionalProperties` of any of their values), or the model could never send them (and strict mode, which
 * cannot express a map, would close the root and hide them). A root that closes itself stays closed.
 */
function allowMapKeys(
  root: RawSchema,
  alternatives: [RawSchema, string][],
  key: string,
  notes: string[],
): Set<RawSchema> {
  const maps = new Map<RawSchema, unknown[]>();
  alternatives.forEach(([m]) => {
    if (!keysOnlyAlternative(m)) return;
    const values = [
      ...(m.additionalProperties === true || isRawSchema(m.additionalProperties) ? [m.additionalProperties] : []),
      ...Object.values(isRawSchema(m.patternProperties) ? m.patternProperties : {}),
    ];
    maps.set(m, values.length > 0 ? values : [true]);
  });
  if (maps.size === 0 || root.additionalProperties !== undefined) return new Set(maps.keys());
  const values: unknown[] = [];
  for (const value of [...maps.values()].flat())
    if (!values.some((known) => JSON.stringify(known) === JSON.stringify(value))) values.push(value);
  root.additionalProperties = values.includes(true) ? true : values.length === 1 ? values[0] : { anyOf: values };
  for (const [m, pointer] of alternatives)
    if (maps.has(m))
      notes.push(
        `${pointer}: alternative (${keysOnlyAlternative(m)}) of the root ${key}: its keys are allowed beside the ` +
          `properties${maps.size > 1 ? ', with the values of any such alternative' : ''}`,
      );
  return new Set(maps.keys());
}

/**
 * The properties of a union's members side by side: a name the members define differently takes any of their schemas
 * (`kind: {anyOf: [{const: 'email'}, {const: 'sms'}]}`), so no member's values are lost (a discriminator that kept
 * the first member's only let the model pick the first member). Names in `skip` (the root's own) are left out.
 */
export function unitedMemberProperties(members: RawSchema[], skip: ReadonlySet<string> = new Set()): RawSchema {
  const choices = new Map<string, unknown[]>();
  for (const member of members) {
    for (const [name, schema] of Object.entries(isRawSchema(member.properties) ? member.properties : {})) {
      if (skip.has(name)) continue;
      const list = choices.get(name) ?? [];
      if (!list.some((known) => JSON.stringify(known) === JSON.stringify(schema))) list.push(schema);
      choices.set(name, list);
    }
  }
  return Object.fromEntries([...choices].map(([name, list]) => [name, list.length === 1 ? list[0] : { anyOf: list }]));
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * Rewrites `root` (at JSON pointer `at`) and every subschema below it in place (the tree is our own copy), in document
 * order; returns how many nodes it visited. A node's children are taken before it is rewritten, so each keeps the
 * pointer it has in the tool's schema (a tuple's positions too).
 */
function rewriteTree(root: RawSchema, notes: string[], at = '#'): number {
  return rewriteEachSchema(
    root,
    (node, pointer) => {
      rewriteTuple(node, pointer, notes);
      if (declaredTypes(node).includes('array') && node.items === undefined) {
        node.items = {};
        notes.push(`${pointer}: items: {} added (items of any type), as OpenAI refuses an array without items`);
      }
      replaceBooleanSchemas(node);
    },
    at,
  );
}

/** Rounds of inlining: a target may hold refs into moved parts in turn (a recursive one is left as it is after that). */
const MAX_INLINE_ROUNDS = 8;
/** Bound on the subschemas copied in: targets that refer to each other could otherwise double at every round. */
const MAX_INLINED_NODES = 10_000;

/**
 * Replaces each `$ref` that resolved in `source` but no longer resolves in `root` by a rewritten copy of its target
 * (the keywords beside the ref win), round after round while targets bring more such refs.
 */
function inlineMovedRefs(root: RawSchema, source: unknown, notes: string[]): void {
  const before = new GeminiSchemaRefResolver(source);
  let inlined = 0;
  for (let round = 0; round < MAX_INLINE_ROUNDS; round++) {
    const after = new GeminiSchemaRefResolver(root);
    const moved: [RawSchema, string][] = [];
    const seen = new Set<object>();
    const stack: [RawSchema, string][] = [[root, '#']];
    while (stack.length > 0) {
      const [node, pointer] = stack.pop()!;
      if (seen.has(node)) continue;
      seen.add(node);
      const ref = node.$ref;
      if (typeof ref === 'string' && after.resolve(ref) === undefined && isRawSchema(before.resolve(ref)))
        moved.push([node, pointer]);
      for (const [tokens, child] of childSchemas(node))
        if (isRawSchema(child)) stack.push([child, childPointer(pointer, ...tokens)]);
    }
    if (moved.length === 0) return;
    for (const [node, pointer] of moved) {
      const target = structuredClone(before.resolve(node.$ref as string) as RawSchema);
      inlined += rewriteTree(target, notes, pointer);
      if (inlined > MAX_INLINED_NODES) return;
      delete node.$ref;
      for (const [key, value] of Object.entries(target)) if (!Object.hasOwn(node, key)) node[key] = value;
    }
  }
}

function rewriteTuple(node: RawSchema, pointer: string, notes: string[]): void {
  const draft07 = Array.isArray(node.items);
  if (!draft07 && !Array.isArray(node.prefixItems)) return;
  const positions = (draft07 ? node.items : node.prefixItems) as unknown[];
  const rest = draft07 ? node.additionalItems : node.items;
  const members = positions.filter((m) => m !== false).map((m) => (m === true ? {} : m));
  if (rest !== undefined && rest !== false) members.push(rest === true ? {} : rest);
  delete node.prefixItems;
  delete node.additionalItems;
  node.items = members.length === 1 ? members[0] : members.length === 0 ? {} : { anyOf: members };
  if (rest === false)
    node.maxItems = Math.min(typeof node.maxItems === 'number' ? node.maxItems : positions.length, positions.length);
  const note = `Positions: ${positions.map((p, i) => `${i + 1}: ${describeBriefly(p)}`).join(', ')}.`;
  node.description = typeof node.description === 'string' ? `${node.description}\n${note}` : note;
  notes.push(
    `${pointer}: a tuple sent as an array of any of its positions' schemas, in any order (the positions are written ` +
      'into the description)',
  );
}

/** A tuple position's schema in a word or two (`string|null`, its `$ref`, `any`), to name it in a description. */
export function describeBriefly(schema: unknown): string {
  if (!isRawSchema(schema)) return 'any';
  const types = declaredTypes(schema);
  return types.length > 0 ? types.join('|') : typeof schema.$ref === 'string' ? schema.$ref : 'any';
}

const BOOLEAN_KEPT = new Set(['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems']);

function replaceBooleanSchemas(node: RawSchema): void {
  const asSchema = (value: unknown) => (value === true ? {} : value === false ? { not: {} } : value);
  for (const [key, value] of Object.entries(node)) {
    if (
      typeof value === 'boolean' &&
      !BOOLEAN_KEPT.has(key) &&
      ['items', 'not', 'if', 'then', 'else', 'contains', 'propertyNames'].includes(key)
    )
      node[key] = asSchema(value);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const)
    if (Array.isArray(node[key])) node[key] = (node[key] as unknown[]).map(asSchema);
  for (const key of ['properties', 'patternProperties', '$defs', 'definitions'] as const) {
    const map = node[key];
    if (isRawSchema(map)) for (const [name, value] of Object.entries(map)) map[name] = asSchema(value);
  }
}
