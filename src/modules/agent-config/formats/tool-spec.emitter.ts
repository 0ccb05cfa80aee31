import { toAnthropicToolSpec } from './anthropic-tool-spec.emitter';
import { toGeminiToolSpec } from './gemini-tool-spec.emitter';
import { ModelFormat, MODEL_FORMATS, ToolSpec, ToolSpecSource } from './model-format.types';
import { toOpenAiToolSpec } from './openai-tool-spec.emitter';
import { toOpenAiResponsesToolSpec } from './openai-responses-tool-spec.emitter';

const EMITTERS: Readonly<Record<ModelFormat, (tool: ToolSpecSource) => ToolSpec>> = {
  openai: toOpenAiToolSpec,
  anthropic: toAnthropicToolSpec,
  gemini: toGeminiToolSpec,
  'openai-responses': (tool) => toOpenAiResponsesToolSpec(tool).spec,
};

/**
 * A tool in the requested model's own format. Pure: the caller caches the result per tool version.
 * Throws for a format outside {@link MODEL_FORMATS} (the request DTO rejects those first).
 */
export function emitToolSpec(format: ModelFormat, tool: ToolSpecSource): ToolSpec {
  const emit = Object.hasOwn(EMITTERS, format) ? EMITTERS[format] : undefined;
  if (!emit) throw new Error(`Unknown model format "${String(format)}": expected one of ${MODEL_FORMATS.join(', ')}.`);
  return emit(tool);
}
