import type { ModelFormat } from './model-format.types';

/** OpenAI `tool_choice` naming one function. */
export interface OpenAiToolChoice {
  type: 'function';
  function: { name: string };
}

/** Anthropic `tool_choice` naming one tool. */
export interface AnthropicToolChoice {
  type: 'tool';
  name: string;
}

/** Gemini `toolConfig`: function calling required, limited to the named function. */
export interface GeminiToolConfig {
  functionCallingConfig: { mode: 'ANY'; allowedFunctionNames: string[] };
}

/** OpenAI Responses API `tool_choice` naming one function (flat, like its tools). */
export interface OpenAiResponsesToolChoice {
  type: 'function';
  name: string;
}

export type ForcedToolChoice = OpenAiToolChoice | OpenAiResponsesToolChoice | AnthropicToolChoice | GeminiToolConfig;

/**
 * What a request to the model must carry so that the model calls `toolName` (and nothing else) in its answer,
 * in that model API's own words: OpenAI `tool_choice`, Anthropic `tool_choice`, Gemini `toolConfig`.
 */
export function forcedToolChoice(format: ModelFormat, toolName: string): ForcedToolChoice {
  switch (format) {
    case 'anthropic':
      return { type: 'tool', name: toolName };
    case 'gemini':
      return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [toolName] } };
    case 'openai-responses':
      return { type: 'function', name: toolName };
    default:
      return { type: 'function', function: { name: toolName } };
  }
}
