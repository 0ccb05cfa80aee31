import { toObjectRootSchema } from './object-root-schema.normalizer';
import { OpenAiToolSpec, ToolSpecSource } from './model-format.types';

/** A tool in OpenAI's format: `{type:"function", function:{name, description, parameters}}`. */
export function toOpenAiToolSpec(tool: ToolSpecSource): OpenAiToolSpec {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: toObjectRootSchema(tool.parameters) },
  };
}
