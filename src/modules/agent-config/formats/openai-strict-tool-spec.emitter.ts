import { ToolSpecSource, OpenAiToolSpec } from './model-format.types';
import { openAiStrictSpecViolations } from './openai-strict-spec.validator';
import { toOpenAiStrictSchema } from './openai-strict-schema.converter';
import { capOpenAiDescription } from './openai-tool-spec.emitter';
import { toPortableSchema } from './portable-json-schema.converter';

/** A strict-mode request's spec for one tool, and why it is not strict when it is not. */
export interface OpenAiStrictEmission {
  spec: OpenAiToolSpec;
  /** Empty when `spec.function.strict` is true. */
  warnings: string[];
}

/**
 * The tool for an OpenAI `strict: true` request: `strict: true` with the schema rewritten by
 * {@link toOpenAiStrictSchema} when the result passes strict mode's rules, else the plain OpenAI spec
 * with `strict: false` and the reasons as warnings (one tool that strict mode refuses must not fail the
 * whole request).
 */
export function toOpenAiStrictToolSpec(tool: ToolSpecSource): OpenAiStrictEmission {
  const portable = toPortableSchema(tool.parameters).schema;
  const description = capOpenAiDescription(tool.description);
  const strict = toOpenAiStrictSchema(portable);
  if (strict.ok) {
    const spec: OpenAiToolSpec = {
      type: 'function',
      function: { name: tool.name, description, parameters: strict.schema, strict: true },
    };
    const problems = openAiStrictSpecViolations(spec);
    if (problems.length === 0) return { spec, warnings: [] };
    return notStrict(tool.name, description, portable, problems);
  }
  return notStrict(tool.name, description, portable, strict.problems);
}

function notStrict(
  name: string,
  description: string,
  parameters: OpenAiToolSpec['function']['parameters'],
  problems: string[],
): OpenAiStrictEmission {
  const spec: OpenAiToolSpec = { type: 'function', function: { name, description, parameters, strict: false } };
  return { spec, warnings: problems.map((p) => `strict: false because the schema ${p}`) };
}
