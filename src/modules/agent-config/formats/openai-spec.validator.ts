import { schemaShapeViolations } from './json-schema-shape.validator';
import { LONE_SURROGATE } from '@app/common/text/lone-surrogate';
import { isRawSchema } from './tool-spec-schema.walk';

/**
 * OpenAI Chat Completions, `tools[].function` (API reference, "Create chat completion"): `name` "must be
 * a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64"; `description` at most
 * 1024 characters (the API answers `string_above_max_length` for `tools[i].function.description`).
 */
const OPENAI_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
export const OPENAI_MAX_DESCRIPTION_CHARS = 1024;

/**
 * `parameters` (function calling guide; the API's `invalid_function_parameters` answers): "schema must be
 * a JSON Schema of 'type: \"object\"', and must not have 'oneOf', 'anyOf', 'allOf', 'enum', or 'not' at
 * the top level"; "In context=('properties', 'x'), array schema missing items"; subschemas are objects.
 */
const OPENAI_FORBIDDEN_AT_ROOT = ['oneOf', 'anyOf', 'allOf', 'enum', 'not'] as const;

/** Why OpenAI Chat Completions would refuse `spec` (non-strict), as `where: problem` (a field, or a schema node by its JSON pointer); empty when it accepts it. */
export function openAiSpecViolations(spec: unknown): string[] {
  if (!isRawSchema(spec) || spec.type !== 'function' || !isRawSchema(spec.function))
    return ['spec must be {type:"function", function:{...}}'];
  const fn = spec.function;
  const problems: string[] = [];
  if (typeof fn.name !== 'string' || !OPENAI_NAME_PATTERN.test(fn.name))
    problems.push('name: must match ^[a-zA-Z0-9_-]{1,64}$');
  if (fn.description !== undefined && typeof fn.description !== 'string')
    problems.push('description: must be a string');
  if (typeof fn.description === 'string' && fn.description.length > OPENAI_MAX_DESCRIPTION_CHARS) {
    problems.push(`description: longer than ${OPENAI_MAX_DESCRIPTION_CHARS} characters`);
  }
  if (typeof fn.description === 'string' && LONE_SURROGATE.test(fn.description))
    problems.push('description: holds a lone UTF-16 surrogate (half of a character), which is not valid JSON text');
  if (fn.strict !== undefined && typeof fn.strict !== 'boolean') problems.push('strict: must be a boolean');
  problems.push(
    ...schemaShapeViolations(fn.parameters, { arrayNeedsItems: true, forbiddenAtRoot: OPENAI_FORBIDDEN_AT_ROOT }),
  );
  return problems;
}
