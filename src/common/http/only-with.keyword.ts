import type { AnySchemaObject, ErrorObject, FuncKeywordDefinition, SchemaValidateFunction } from 'ajv';

/** `x-only-with` on an object schema: `{switch: {needs: {property: value}, because: 'why'}}`. */
type OnlyWithRules = Record<string, { needs: Record<string, unknown>; because: string }>;

/**
 * A request body keyword for a cross-field rule: the boolean `switch`, when `true`, needs each `property` of
 * `needs` to hold its value (an absent property counts as its schema `default`). Reported on the switch:
 * "strict is OpenAI's mode: send it with format openai, or leave it out for format gemini". An `x-` name, so
 * Swagger shows it as an extension of the same schema ajv validates.
 */
export const ONLY_WITH_KEYWORD: FuncKeywordDefinition = {
  keyword: 'x-only-with',
  type: 'object',
  schemaType: 'object',
  errors: true,
  validate: function onlyWith(
    rules: OnlyWithRules,
    data: Record<string, unknown>,
    parentSchema?: AnySchemaObject,
    cxt?: Parameters<SchemaValidateFunction>[3],
  ): boolean {
    const properties = (parentSchema?.properties ?? {}) as Record<string, { default?: unknown }>;
    const errors: Partial<ErrorObject>[] = [];
    for (const [name, { needs, because }] of Object.entries(rules)) {
      if (data[name] !== true) continue;
      for (const [property, value] of Object.entries(needs)) {
        const actual = data[property] ?? properties[property]?.default;
        if (actual === value) continue;
        errors.push({
          keyword: 'x-only-with',
          instancePath: `${cxt?.instancePath ?? ''}/${name}`,
          params: { property, value },
          message: `${name} is ${because}: send it with ${property} ${String(value)}, or leave it out for ${property} ${String(actual)}`,
        });
      }
    }
    (onlyWith as { errors?: Partial<ErrorObject>[] }).errors = errors;
    return errors.length === 0;
  },
};
