import { childPointer, childSchemas, isRawSchema } from './tool-spec-schema.walk';
import { openAiSpecViolations } from './openai-spec.validator';
import { hasRegexLookaround, openAiStrictSpecViolations } from './openai-strict-spec.validator';

/**
 * OpenAI Responses API, `tools[]` of type function (API reference, "Create a model response"): the same
 * `name`, `description` and `parameters` rules as Chat Completions, flat, with `strict` (default true):
 * a strict tool must pass strict mode's rules, and no tool may hold a `pattern` with a lookaround.
 */
export function openAiResponsesSpecViolations(spec: unknown): string[] {
  if (!isRawSchema(spec) || spec.type !== 'function' || 'function' in spec)
    return ['spec must be the flat {type:"function", name, description, parameters, strict}'];
  const { type: _type, strict, ...fn } = spec;
  const chat = { type: 'function', function: { ...fn, strict: strict ?? true } };
  if (strict !== false) return openAiStrictSpecViolations(chat);
  const problems = openAiSpecViolations(chat);
  return problems.length > 0 ? problems : lookaroundViolations(fn.parameters);
}

/**
 * The Responses API refuses a lookaround in any tool's `pattern`, strict or not ("Invalid JSON schema: regex
 * lookaround is not supported. Found at $.properties.x.pattern", reported by codex and AI SDK users).
 */
function lookaroundViolations(parameters: unknown): string[] {
  const problems: string[] = [];
  const seen = new Set<object>();
  const visit = (schema: unknown, path: string): void => {
    if (!isRawSchema(schema) || seen.has(schema)) return;
    seen.add(schema);
    if (typeof schema.pattern === 'string' && hasRegexLookaround(schema.pattern))
      problems.push(
        `${path}: pattern uses a regex lookaround ((?=, (?!, (?<=, (?<!), which the Responses API does not support`,
      );
    for (const [tokens, child] of childSchemas(schema)) visit(child, childPointer(path, ...tokens));
  };
  visit(parameters, '#');
  return problems;
}
