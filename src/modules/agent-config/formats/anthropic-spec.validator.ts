import { schemaShapeViolations } from './json-schema-shape.validator';
import { LONE_SURROGATE } from '@app/common/text/lone-surrogate';
import { isRawSchema } from './tool-spec-schema.walk';

/**
 * Anthropic Messages API, `tools[]` (tool use docs and API reference): `name` matches
 * `^[a-zA-Z0-9_-]{1,64}$`; `input_schema` is a JSON Schema (draft 2020-12) object with `type: "object"`;
 * the API answers "input_schema does not support oneOf, allOf, or anyOf at the top level" for a root union.
 */
const ANTHROPIC_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
const ANTHROPIC_FORBIDDEN_AT_ROOT = ['oneOf', 'allOf', 'anyOf'] as const;
/**
 * The keys of `properties`: the API answers "input_schema.properties: Property keys should match pattern
 * '^[a-zA-Z0-9_.-]{1,64}$'" (Bedrock's Converse API too) and refuses the whole request. Checked at every depth.
 */
export const ANTHROPIC_PROPERTY_KEY_PATTERN = /^[a-zA-Z0-9_.-]{1,64}$/;

/** Why Anthropic would refuse `spec`, as `where: problem` (a field, or a schema node by its JSON pointer); empty when it accepts it. */
export function anthropicSpecViolations(spec: unknown): string[] {
  if (!isRawSchema(spec)) return ['spec must be {name, description, input_schema}'];
  const problems: string[] = [];
  if (typeof spec.name !== 'string' || !ANTHROPIC_NAME_PATTERN.test(spec.name))
    problems.push('name: must match ^[a-zA-Z0-9_-]{1,64}$');
  if (spec.description !== undefined && typeof spec.description !== 'string')
    problems.push('description: must be a string');
  if (typeof spec.description === 'string' && LONE_SURROGATE.test(spec.description))
    problems.push('description: holds a lone UTF-16 surrogate (half of a character), which is not valid JSON text');
  problems.push(
    ...schemaShapeViolations(spec.input_schema, {
      arrayNeedsItems: false,
      forbiddenAtRoot: ANTHROPIC_FORBIDDEN_AT_ROOT,
      propertyKeyPattern: ANTHROPIC_PROPERTY_KEY_PATTERN,
    }),
  );
  return problems;
}
