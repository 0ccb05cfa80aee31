import { OPENAI_MAX_DESCRIPTION_CHARS } from './openai-spec.validator';
import { JsonSchema } from '@app/modules/tool-registry/tool-registry.types';
import { PortableSchema, toPortableSchema } from './portable-json-schema.converter';
import { OpenAiToolSpec, ToolSpecSource } from './model-format.types';
import { renamePropertyKeys } from './sent-property-key.renamer';

/**
 * OpenAI refuses a function description over its cap: the end is cut, marked with an ellipsis. The cut never falls
 * between the two halves of a character outside the BMP (an emoji): half of one is not valid JSON text, and the API
 * refuses the whole request for it (a half already there is replaced where every spec is emitted, `emitToolSpec`).
 */
export function capOpenAiDescription(text: string): string {
  if (text.length <= OPENAI_MAX_DESCRIPTION_CHARS) return text;
  let end = OPENAI_MAX_DESCRIPTION_CHARS - 1;
  if (isHighSurrogate(text.charCodeAt(end - 1))) end--;
  return `${text.slice(0, end)}…`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Why a description sent to OpenAI is not the tool's own, when it is not. */
export function openAiDescriptionWarnings(description: string): string[] {
  return description.length > OPENAI_MAX_DESCRIPTION_CHARS
    ? [`description: cut to ${OPENAI_MAX_DESCRIPTION_CHARS} characters, OpenAI's cap`]
    : [];
}

/**
 * The `parameters` OpenAI accepts: the schema rewritten by {@link toPortableSchema}, then each property key that is not
 * valid JSON text (a name holding half a surrogate pair) renamed by {@link renamePropertyKeys}. `notes`: the portable
 * rewrite's, then each renamed key by its JSON pointer.
 */
export function toOpenAiParameters(parameters: JsonSchema): PortableSchema {
  const { schema, notes } = toPortableSchema(parameters);
  return { schema: renamePropertyKeys(schema, 'json', notes), notes };
}

/**
 * A tool in OpenAI's format: `{type:"function", function:{name, description, parameters}}`, the
 * schema rewritten by {@link toOpenAiParameters} and the description cut to OpenAI's cap; `warnings`: what that
 * changed and why, each schema node by its JSON pointer.
 */
export function emitOpenAiToolSpec(tool: ToolSpecSource): { spec: OpenAiToolSpec; warnings: string[] } {
  const { schema, notes } = toOpenAiParameters(tool.parameters);
  const spec: OpenAiToolSpec = {
    type: 'function',
    function: { name: tool.name, description: capOpenAiDescription(tool.description), parameters: schema },
  };
  return { spec, warnings: [...notes, ...openAiDescriptionWarnings(tool.description)] };
}

/** {@link emitOpenAiToolSpec}'s spec alone. */
export function toOpenAiToolSpec(tool: ToolSpecSource): OpenAiToolSpec {
  return emitOpenAiToolSpec(tool).spec;
}
