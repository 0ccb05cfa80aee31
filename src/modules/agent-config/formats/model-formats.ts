/** The model-format emitters' public surface: import from here, not from the files behind it. */
export { MODEL_FORMATS, isModelFormat } from './model-format.types';
export type {
  AnthropicToolSpec,
  GeminiToolSpec,
  ModelFormat,
  OpenAiResponsesToolSpec,
  OpenAiToolSpec,
  ToolSpec,
  ToolSpecSource,
} from './model-format.types';
export { toOpenAiToolSpec } from './openai-tool-spec.emitter';
export { toAnthropicToolSpec } from './anthropic-tool-spec.emitter';
export { toGeminiToolSpec } from './gemini-tool-spec.emitter';
export { toGeminiSchema } from './gemini-schema.converter';
export { emitToolSpec } from './tool-spec.emitter';
export type { EmittedToolSpec, SpecVariant } from './tool-spec.emitter';
export { toOpenAiStrictToolSpec } from './openai-strict-tool-spec.emitter';
export { toOpenAiResponsesToolSpec } from './openai-responses-tool-spec.emitter';
export { openAiSpecViolations } from './openai-spec.validator';
export { openAiResponsesSpecViolations } from './openai-responses-spec.validator';
export { openAiStrictSpecViolations } from './openai-strict-spec.validator';
export { anthropicSpecViolations } from './anthropic-spec.validator';
export { geminiSpecViolations } from './gemini-spec.validator';
export type { OpenAiStrictEmission } from './openai-strict-tool-spec.emitter';
export { forcedToolChoice } from './tool-choice.emitter';
export type { ForcedToolChoice } from './tool-choice.emitter';
