import { PropertyKeyRule, sentPropertyKey, sentPropertyKeyReason, sentPropertyKeys } from './sent-property-key';
import {
  LIST_SUBSCHEMA_KEYWORDS,
  MAP_SUBSCHEMA_KEYWORDS,
  RawSchema,
  childPointer,
  isRawSchema,
  pointerTokenText,
  rewriteEachSchema,
} from './tool-spec-schema.walk';

/** The key each property name of a renamed `properties` object is sent as (see sentPropertyKeys). */
type SentKeys = WeakMap<object, ReadonlyMap<string, string>>;

/**
 * `schema` (our own copy, changed in place) with every property key a provider following `rule` refuses renamed by
 * {@link sentPropertyKeys} at any depth, `required` and the `$ref`s that pass through such a key with it; the argument
 * reviver maps the keys back. Each renamed key is added to `notes` by its JSON pointer in `schema` as it was.
 */
export function renamePropertyKeys(schema: RawSchema, rule: PropertyKeyRule, notes: string[]): RawSchema {
  const sentKeys: SentKeys = new WeakMap();
  const refs: RawSchema[] = [];
  // Pointers name properties as the admin wrote them: the walk takes a node's children before its keys are renamed.
  rewriteEachSchema(schema, (node, pointer) => {
    renameProperties(node, pointer, rule, notes, sentKeys);
    if (typeof node.$ref === 'string') refs.push(node);
  });
  // Once every key is renamed: a ref follows the keys its path's objects were given.
  for (const node of refs) node.$ref = renamedRef(schema, node.$ref as string, rule, sentKeys);
  return schema;
}

function renameProperties(
  node: RawSchema,
  pointer: string,
  rule: PropertyKeyRule,
  notes: string[],
  sentKeys: SentKeys,
): void {
  if (!isRawSchema(node.properties)) return;
  const names = Object.keys(node.properties);
  const keys = sentPropertyKeys(names, rule);
  const keyOf = (name: string) => keys.get(name)!;
  if (names.every((name) => keyOf(name) === name)) return;
  const properties = node.properties;
  // fromEntries defines own keys, so a property named "__proto__" stays a property.
  const renamed = Object.fromEntries(names.map((name) => [keyOf(name), properties[name]]));
  node.properties = renamed;
  sentKeys.set(renamed, keys);
  // A required name that is no property (valid JSON Schema: the object must hold that key) stays as it is; `required`
  // must stay a list of distinct strings, or OpenAI and Anthropic refuse the schema and the whole request with it.
  if (Array.isArray(node.required))
    node.required = [
      ...new Set(
        (node.required as unknown[]).map((name) => (typeof name === 'string' ? (keys.get(name) ?? name) : name)),
      ),
    ];
  for (const name of names)
    if (keyOf(name) !== name)
      notes.push(
        `${childPointer(pointer, 'properties', name)}: key sent as ${JSON.stringify(keyOf(name))}, as ` +
          `${sentPropertyKeyReason(name, rule)} (the gateway maps it back)`,
      );
}

/** Keywords whose value maps names to subschemas, and those whose value is a list of them: what a pointer steps through. */
const NAMED_SUBSCHEMAS = new Set<string>(MAP_SUBSCHEMA_KEYWORDS);
const LISTED_SUBSCHEMAS = new Set<string>([...LIST_SUBSCHEMA_KEYWORDS, 'items']);

/**
 * A local JSON-pointer `$ref` (`#/properties/ship%20to/properties/zip`) with each property name it passes through
 * written as the provider is sent it (followed through the renamed `root`), so it still resolves once the keys are
 * renamed; any other ref as it is.
 */
function renamedRef(root: RawSchema, ref: string, rule: PropertyKeyRule, sentKeys: SentKeys): string {
  if (!ref.startsWith('#/')) return ref;
  const tokens = ref.slice(2).split('/');
  let next: 'keyword' | 'name' | 'property' | 'index' = 'keyword';
  let at: unknown = root;
  for (let i = 0; i < tokens.length; i++) {
    let token: string;
    try {
      token = pointerTokenText(decodeURIComponent(tokens[i]));
    } catch {
      return ref;
    }
    if (next === 'property') {
      const key = (isRawSchema(at) && sentKeys.get(at)?.get(token)) || sentPropertyKey(token, rule);
      if (key !== token) tokens[i] = key;
      token = key;
    }
    at = typeof at === 'object' && at !== null && Object.hasOwn(at, token) ? (at as RawSchema)[token] : undefined;
    if (next === 'property' || next === 'name') {
      next = 'keyword';
      continue;
    }
    // `items` holds a list (a draft-07 tuple) or one schema: a keyword may follow it directly.
    if (next === 'index') {
      next = 'keyword';
      if (/^\d+$/.test(token)) continue;
    }
    if (NAMED_SUBSCHEMAS.has(token)) next = token === 'properties' ? 'property' : 'name';
    else if (LISTED_SUBSCHEMAS.has(token)) next = 'index';
  }
  return `#/${tokens.join('/')}`;
}
