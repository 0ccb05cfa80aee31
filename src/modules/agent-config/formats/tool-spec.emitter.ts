import { emitAnthropicToolSpec } from './anthropic-tool-spec.emitter';
import { emitGeminiToolSpec } from './gemini-tool-spec.emitter';
import { ModelFormat, MODEL_FORMATS, ToolSpec, ToolSpecSource } from './model-format.types';
import { toOpenAiStrictToolSpec } from './openai-strict-tool-spec.emitter';
import { emitOpenAiToolSpec } from './openai-tool-spec.emitter';
import { toOpenAiResponsesToolSpec } from './openai-responses-tool-spec.emitter';
import { wellFormedJson } from './tool-spec-schema.walk';

/** What a request asks to be emitted: a model format, or OpenAI's strict mode. */
export type SpecVariant = ModelFormat | 'openai-strict';

/** One tool's spec as a provider receives it, serialized once. */
export interface EmittedToolSpec {
  spec: ToolSpec;
  json: string;
  /**
   * What the admin must know the spec changed and why, in every format: each schema node the rewrite dropped or
   * reshaped, or whose keywords it moved into the description, named by its JSON pointer (`#/properties/box: ...`), each
   * property key sent renamed, a description cut to the provider's cap, and for a
   * strict variant (openai-strict, openai-responses) each reason it had to emit `strict: false`; empty otherwise.
   */
  warnings: string[];
}

type Emitter = (tool: ToolSpecSource) => { spec: ToolSpec; warnings: string[] };

const EMITTERS: Readonly<Record<SpecVariant, Emitter>> = {
  openai: emitOpenAiToolSpec,
  'openai-strict': toOpenAiStrictToolSpec,
  anthropic: emitAnthropicToolSpec,
  gemini: emitGeminiToolSpec,
  'openai-responses': toOpenAiResponsesToolSpec,
};

/**
 * A tool in the requested model's own format, the one entry every caller uses (tool-specs, the agent loop through
 * it, the new-tool checklist). Pure: the caller caches the result per tool version. Half of a surrogate pair anywhere
 * in the spec (a description cut mid-emoji by an MCP server, an admin's `\ud83d` escape, an enum value) becomes
 * U+FFFD here, once for every format: OpenAI and Anthropic refuse a whole request holding one.
 * Throws for a variant outside {@link MODEL_FORMATS} and openai-strict (the request DTO rejects those first).
 */
export function emitToolSpec(variant: SpecVariant, tool: ToolSpecSource): EmittedToolSpec {
  const emit = Object.hasOwn(EMITTERS, variant) ? EMITTERS[variant] : undefined;
  if (!emit) throw new Error(`Unknown model format "${String(variant)}": expected one of ${MODEL_FORMATS.join(', ')}.`);
  const { spec, warnings } = emit(tool);
  const { value, json } = wellFormedJson(spec);
  return { spec: value, json, warnings };
}
