import { PropertyKeyRule, sentPropertyKey, sentPropertyKeyReason } from './sent-property-key';
import { RawSchema, childPointer, childSchemas, isRawSchema, pushToPopInOrder } from './tool-spec-schema.walk';

/**
 * `schema` (our own copy, changed in place) with every property key a provider following `rule` refuses renamed by
 * {@link sentPropertyKey} at any depth, `required` and the `$ref`s that pass through such a key with it; the argument
 * reviver maps the keys back. Each renamed key is added to `notes` by its JSON pointer in `schema` as it was.
 */
export function renamePropertyKeys(schema: RawSchema, rule: PropertyKeyRule, notes: string[]): RawSchema {
  const seen = new Set<object>();
  const stack: [RawSchema, string][] = [[schema, '#']];
  while (stack.length > 0) {
    const [node, pointer] = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    // Taken before the keys are renamed: a pointer names a property as the admin wrote it.
    const children = childSchemas(node)
      .filter((entry): entry is [(string | number)[], RawSchema] => isRawSchema(entry[1]))
      .map(([tokens, child]): [RawSchema, string] => [child, childPointer(pointer, ...tokens)]);
    renameProperties(node, pointer, rule, notes);
    if (typeof node.$ref === 'string') node.$ref = renamedRef(node.$ref, rule);
    pushToPopInOrder(stack, children);
  }
  return schema;
}

function renameProperties(node: RawSchema, pointer: string, rule: PropertyKeyRule, notes: string[]): void {
  if (!isRawSchema(node.properties)) return;
  const names = Object.keys(node.properties);
  const keyOf = (name: string) => sentPropertyKey(name, rule);
  if (names.every((name) => keyOf(name) === name)) return;
  const properties = node.properties;
  // fromEntries defines own keys, so a property named "__proto__" stays a property.
  node.properties = Object.fromEntries(names.map((name) => [keyOf(name), properties[name]]));
  if (Array.isArray(node.required))
    node.required = (node.required as unknown[]).map((name) => (typeof name === 'string' ? keyOf(name) : name));
  for (const name of names)
    if (keyOf(name) !== name)
      notes.push(
        `${childPointer(pointer, 'properties', name)}: key sent as ${JSON.stringify(keyOf(name))}, as ` +
          `${sentPropertyKeyReason(name, rule)} (the gateway maps it back)`,
      );
}

/** Keywords whose value maps names to subschemas, and those whose value is a list of them: what a pointer steps through. */
const NAMED_SUBSCHEMAS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const LISTED_SUBSCHEMAS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items']);

/**
 * A local JSON-pointer `$ref` (`#/properties/ship%20to/properties/zip`) with each property name it passes through
 * written as the provider is sent it, so it still resolves once the keys are renamed; any other ref as it is.
 */
function renamedRef(ref: string, rule: PropertyKeyRule): string {
  if (!ref.startsWith('#/')) return ref;
  const tokens = ref.slice(2).split('/');
  let next: 'keyword' | 'name' | 'property' | 'index' = 'keyword';
  for (let i = 0; i < tokens.length; i++) {
    let token: string;
    try {
      token = decodeURIComponent(tokens[i]).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return ref;
    }
    if (next === 'property' && sentPropertyKey(token, rule) !== token) tokens[i] = sentPropertyKey(token, rule);
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
