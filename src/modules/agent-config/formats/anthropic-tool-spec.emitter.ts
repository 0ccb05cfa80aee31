import { JsonSchema } from '@app/modules/tool-registry/tool-registry.types';
import { anthropicPropertyKey } from './anthropic-property-key';
import { PortableSchema, toPortableSchema } from './portable-json-schema.converter';
import { ANTHROPIC_PROPERTY_KEY_PATTERN } from './anthropic-spec.validator';
import { AnthropicToolSpec, ToolSpecSource } from './model-format.types';
import { RawSchema, childPointer, childSchemas, isRawSchema, pushToPopInOrder } from './tool-spec-schema.walk';

/**
 * The `input_schema` Anthropic accepts: the schema rewritten by {@link toPortableSchema}, then every property key
 * Anthropic refuses (`$top`, `filter[id]`, a space, over 64 characters: see anthropic-spec.validator.ts) renamed by
 * {@link anthropicPropertyKey} at any depth, `required` and the `$ref`s that pass through such a key with it. The
 * argument reviver maps the keys back. `notes`: the portable rewrite's, then each renamed key by its JSON pointer.
 */
export function toAnthropicInputSchema(parameters: JsonSchema): PortableSchema {
  const { schema, notes } = toPortableSchema(parameters);
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
    renameProperties(node, pointer, notes);
    if (typeof node.$ref === 'string') node.$ref = renamedRef(node.$ref);
    pushToPopInOrder(stack, children);
  }
  return { schema, notes };
}

function renameProperties(node: RawSchema, pointer: string, notes: string[]): void {
  if (!isRawSchema(node.properties)) return;
  const names = Object.keys(node.properties);
  if (names.every((name) => anthropicPropertyKey(name) === name)) return;
  const properties = node.properties;
  node.properties = Object.fromEntries(names.map((name) => [anthropicPropertyKey(name), properties[name]]));
  if (Array.isArray(node.required))
    node.required = (node.required as unknown[]).map((name) =>
      typeof name === 'string' ? anthropicPropertyKey(name) : name,
    );
  for (const name of names)
    if (anthropicPropertyKey(name) !== name)
      notes.push(
        `${childPointer(pointer, 'properties', name)}: key sent as ${JSON.stringify(anthropicPropertyKey(name))}, as ` +
          `Anthropic refuses property keys outside ${ANTHROPIC_PROPERTY_KEY_PATTERN.source} (the gateway maps it back)`,
      );
}

/** Keywords whose value maps names to subschemas, and those whose value is a list of them: what a pointer steps through. */
const NAMED_SUBSCHEMAS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const LISTED_SUBSCHEMAS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items']);

/**
 * A local JSON-pointer `$ref` (`#/properties/ship%20to/properties/zip`) with each property name it passes through
 * written as Anthropic is sent it, so it still resolves once the keys are renamed; any other ref as it is.
 */
function renamedRef(ref: string): string {
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
    if (next === 'property' || next === 'name') {
      if (next === 'property' && anthropicPropertyKey(token) !== token) tokens[i] = anthropicPropertyKey(token);
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

/**
 * A tool in Anthropic's format: `{name, description, input_schema}`, the schema rewritten by
 * {@link toAnthropicInputSchema}; `warnings`: what that changed and why, by JSON pointer.
 */
export function emitAnthropicToolSpec(tool: ToolSpecSource): { spec: AnthropicToolSpec; warnings: string[] } {
  const { schema, notes } = toAnthropicInputSchema(tool.parameters);
  return { spec: { name: tool.name, description: tool.description, input_schema: schema }, warnings: notes };
}

/** {@link emitAnthropicToolSpec}'s spec alone. */
export function toAnthropicToolSpec(tool: ToolSpecSource): AnthropicToolSpec {
  return emitAnthropicToolSpec(tool).spec;
}
