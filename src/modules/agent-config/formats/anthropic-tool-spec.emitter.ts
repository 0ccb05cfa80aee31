import { JsonSchema } from '@app/modules/tool-registry/tool-registry.types';
import { anthropicPropertyKey } from './anthropic-property-key';
import { PortableSchema, toPortableSchema } from './portable-json-schema.converter';
import { AnthropicToolSpec, ToolSpecSource } from './model-format.types';
import { RawSchema, childSchemas, isRawSchema } from './tool-spec-schema.walk';

/**
 * The `input_schema` Anthropic accepts: the schema rewritten by {@link toPortableSchema}, then every property key
 * Anthropic refuses (`$top`, `filter[id]`, a space, over 64 characters: see anthropic-spec.validator.ts) renamed by
 * {@link anthropicPropertyKey} at any depth, `required` and the `$ref`s that pass through such a key with it. The
 * argument reviver maps the keys back.
 */
export function toAnthropicInputSchema(parameters: JsonSchema): PortableSchema {
  const { schema, notes } = toPortableSchema(parameters);
  const renamed = new Set<string>();
  const seen = new Set<object>();
  const stack: RawSchema[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    renameProperties(node, renamed);
    if (typeof node.$ref === 'string') node.$ref = renamedRef(node.$ref);
    for (const [, child] of childSchemas(node)) if (isRawSchema(child)) stack.push(child);
  }
  if (renamed.size > 0)
    notes.push(
      `property keys Anthropic refuses are renamed (${[...renamed].map((n) => JSON.stringify(n)).join(', ')})`,
    );
  return { schema, notes };
}

function renameProperties(node: RawSchema, renamed: Set<string>): void {
  if (!isRawSchema(node.properties)) return;
  const names = Object.keys(node.properties);
  if (names.every((name) => anthropicPropertyKey(name) === name)) return;
  const properties = node.properties;
  node.properties = Object.fromEntries(names.map((name) => [anthropicPropertyKey(name), properties[name]]));
  if (Array.isArray(node.required))
    node.required = (node.required as unknown[]).map((name) =>
      typeof name === 'string' ? anthropicPropertyKey(name) : name,
    );
  for (const name of names) if (anthropicPropertyKey(name) !== name) renamed.add(name);
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

/** A tool in Anthropic's format: `{name, description, input_schema}`, the schema rewritten by {@link toAnthropicInputSchema}. */
export function toAnthropicToolSpec(tool: ToolSpecSource): AnthropicToolSpec {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: toAnthropicInputSchema(tool.parameters).schema,
  };
}
