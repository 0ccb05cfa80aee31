import { toPortableSchema } from './portable-json-schema.converter';
import { AnthropicToolSpec, ToolSpecSource } from './model-format.types';

/** A tool in Anthropic's format: `{name, description, input_schema}`, the schema rewritten by {@link toPortableSchema}. */
export function toAnthropicToolSpec(tool: ToolSpecSource): AnthropicToolSpec {
  return { name: tool.name, description: tool.description, input_schema: toPortableSchema(tool.parameters).schema };
}
