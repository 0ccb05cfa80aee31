import { OPENAI_MAX_DESCRIPTION_CHARS } from './openai-spec.validator';
import { toPortableSchema } from './portable-json-schema.converter';
import { OpenAiToolSpec, ToolSpecSource } from './model-format.types';

/** OpenAI refuses a function description over its cap: the end is cut, marked with an ellipsis. */
export function capOpenAiDescription(description: string): string {
  return description.length <= OPENAI_MAX_DESCRIPTION_CHARS
    ? description
    : `${description.slice(0, OPENAI_MAX_DESCRIPTION_CHARS - 1)}…`;
}

/**
 * A tool in OpenAI's format: `{type:"function", function:{name, description, parameters}}`, the
 * schema rewritten by {@link toPortableSchema} and the description cut to OpenAI's cap.
 */
export function toOpenAiToolSpec(tool: ToolSpecSource): OpenAiToolSpec {
  return {
    type: 'function',
    function: {
      name: tool.name,
      description: capOpenAiDescription(tool.description),
      parameters: toPortableSchema(tool.parameters).schema,
    },
  };
}
