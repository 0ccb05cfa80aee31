import { JsonSchema } from '@app/modules/tool-registry/tool-registry.types';
import { PortableSchema, toPortableSchema } from './portable-json-schema.converter';
import { AnthropicToolSpec, ToolSpecSource } from './model-format.types';
import { renamePropertyKeys } from './sent-property-key.renamer';

/**
 * The `input_schema` Anthropic accepts: the schema rewritten by {@link toPortableSchema}, then every property key
 * Anthropic refuses (`$top`, `filter[id]`, a space, over 64 characters: see anthropic-spec.validator.ts) renamed by
 * {@link renamePropertyKeys} at any depth, `required` and the `$ref`s that pass through such a key with it. The
 * argument reviver maps the keys back. `notes`: the portable rewrite's, then each renamed key by its JSON pointer.
 */
export function toAnthropicInputSchema(parameters: JsonSchema): PortableSchema {
  const { schema, notes } = toPortableSchema(parameters);
  return { schema: renamePropertyKeys(schema, 'anthropic', notes), notes };
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
