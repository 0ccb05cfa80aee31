import { ToolSpecSource, OpenAiToolSpec } from './model-format.types';
import { openAiStrictSpecViolations } from './openai-strict-spec.validator';
import { toOpenAiStrictSchema } from './openai-strict-schema.converter';
import { capOpenAiDescription, openAiDescriptionWarnings, toOpenAiParameters } from './openai-tool-spec.emitter';

/** A strict-mode request's spec for one tool, and what it changed and why. */
export interface OpenAiStrictEmission {
  spec: OpenAiToolSpec;
  /**
   * The rewrites the plain OpenAI spec has too (by JSON pointer), then, when `spec.function.strict` is true, each node
   * whose keywords strict mode refuses were moved into its description, else each reason strict mode could not take
   * the schema.
   */
  warnings: string[];
}

/**
 * The tool for an OpenAI `strict: true` request: `strict: true` with the schema rewritten by
 * {@link toOpenAiStrictSchema} (from {@link toOpenAiParameters}) when the result passes strict mode's rules, else the
 * plain OpenAI spec with `strict: false` and the reasons as warnings (one tool that strict mode refuses must not fail
 * the whole request).
 */
export function toOpenAiStrictToolSpec(tool: ToolSpecSource): OpenAiStrictEmission {
  const { schema: portable, notes } = toOpenAiParameters(tool.parameters);
  const rewrites = [...notes, ...openAiDescriptionWarnings(tool.description)];
  const description = capOpenAiDescription(tool.description);
  const strict = toOpenAiStrictSchema(portable);
  const loose = (reasons: string[]): OpenAiStrictEmission => ({
    spec: { type: 'function', function: { name: tool.name, description, parameters: portable, strict: false } },
    warnings: [...rewrites, ...reasons],
  });
  if (!strict.ok) return loose(strict.problems);
  const spec: OpenAiToolSpec = {
    type: 'function',
    function: { name: tool.name, description, parameters: strict.schema, strict: true },
  };
  const refusals = openAiStrictSpecViolations(spec);
  if (refusals.length === 0) return { spec, warnings: [...rewrites, ...strict.moved] };
  return loose(refusals.map((p) => `strict: false because strict mode would refuse the rewritten schema: ${p}`));
}
