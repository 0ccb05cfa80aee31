import { isRawSchema } from './tool-spec-schema.walk';
import { openAiSpecViolations } from './openai-spec.validator';
import { openAiStrictSpecViolations } from './openai-strict-spec.validator';

/**
 * OpenAI Responses API, `tools[]` of type function (API reference, "Create a model response"): the same
 * `name`, `description` and `parameters` rules as Chat Completions, flat, with `strict` (default true):
 * a strict tool must pass strict mode's rules.
 */
export function openAiResponsesSpecViolations(spec: unknown): string[] {
  if (!isRawSchema(spec) || spec.type !== 'function' || 'function' in spec)
    return ['spec must be the flat {type:"function", name, description, parameters, strict}'];
  const { type: _type, strict, ...fn } = spec;
  const chat = { type: 'function', function: { ...fn, strict: strict ?? true } };
  return strict === false ? openAiSpecViolations(chat) : openAiStrictSpecViolations(chat);
}
