import { JsonSchema } from '@app/modules/tool-registry/tool-registry.types';

/**
 * The model APIs whose tool format the gateway can emit (`format` of the tool-specs request).
 * `openai-responses` is the OpenAI Responses API's flat function tool, strict by default as that API is.
 */
export const MODEL_FORMATS = ['openai', 'anthropic', 'gemini', 'openai-responses'] as const;
export type ModelFormat = (typeof MODEL_FORMATS)[number];

/** True when `value` names a supported model format. */
export function isModelFormat(value: unknown): value is ModelFormat {
  return typeof value === 'string' && (MODEL_FORMATS as readonly string[]).includes(value);
}

/** The part of a tool descriptor an emitter reads. */
export interface ToolSpecSource {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** OpenAI chat-completions tool: `{type:"function", function:{name, description, parameters}}`. */
export interface OpenAiToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema; strict?: boolean };
}

/** OpenAI Responses API tool: flat `{type:"function", name, description, parameters, strict}`. */
export interface OpenAiResponsesToolSpec {
  type: 'function';
  name: string;
  description: string;
  parameters: JsonSchema;
  strict: boolean;
}

/** Anthropic messages tool: `{name, description, input_schema}`. */
export interface AnthropicToolSpec {
  name: string;
  description: string;
  input_schema: JsonSchema;
}

/**
 * Gemini function declaration. `parameters` is absent for a tool that takes no arguments: Gemini has
 * rejected an OBJECT schema with empty `properties` ("should be non-empty for OBJECT type").
 */
export interface GeminiToolSpec {
  name: string;
  description: string;
  parameters?: JsonSchema;
}

export type ToolSpec = OpenAiToolSpec | OpenAiResponsesToolSpec | AnthropicToolSpec | GeminiToolSpec;
