import { OpenAiResponsesToolSpec, ToolSpecSource } from './model-format.types';
import { toOpenAiStrictToolSpec } from './openai-strict-tool-spec.emitter';

/**
 * A tool for the OpenAI Responses API: the flat function shape, strict by default as that API is
 * (`strict: false` and warnings for a schema strict mode cannot express, as with `strict: true` on Chat Completions).
 */
export function toOpenAiResponsesToolSpec(tool: ToolSpecSource): { spec: OpenAiResponsesToolSpec; warnings: string[] } {
  const { spec, warnings } = toOpenAiStrictToolSpec(tool);
  const { name, description, parameters, strict } = spec.function;
  return { spec: { type: 'function', name, description, parameters, strict: strict === true }, warnings };
}
