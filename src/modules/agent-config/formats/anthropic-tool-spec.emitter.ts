import { toObjectRootSchema } from './object-root-schema.normalizer';
import { AnthropicToolSpec, ToolSpecSource } from './model-format.types';

/** A tool in Anthropic's format: `{name, description, input_schema}`. */
export function toAnthropicToolSpec(tool: ToolSpecSource): AnthropicToolSpec {
  return { name: tool.name, description: tool.description, input_schema: toObjectRootSchema(tool.parameters) };
}
