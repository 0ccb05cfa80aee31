import { GeminiSchemaRefResolver } from './gemini-schema-ref.resolver';
import {
  JSON_SCHEMA_TYPES,
  RawSchema,
  childPointer,
  childSchemas,
  declaredTypes,
  isRawSchema,
} from './tool-spec-schema.walk';

/** What a provider's general JSON Schema check adds to plain validity. */
export interface SchemaShapeRules {
  /** OpenAI: "array schema missing items" for `{type:'array'}` without `items`. */
  arrayNeedsItems: boolean;
  /** Root keywords the provider refuses ("... at the top level"). */
  forbiddenAtRoot: readonly string[];
  /** Anthropic: "Property keys should match pattern ..." for a key of `properties` outside it. */
  propertyKeyPattern?: RegExp;
}

/** Where both providers take `true`/`false` (`additionalProperties: false` is what strict mode asks for). */
const BOOLEAN_ALLOWED = new Set([
  'additionalProperties',
  'unevaluatedProperties',
  'additionalItems',
  'unevaluatedItems',
]);

/**
 * Violations, as `pointer: problem` (the node's JSON pointer), of the JSON Schema rules OpenAI (non-strict) and Anthropic both
 * apply to a tool's parameters, plus `rules`: the root is `type: "object"`, every subschema is an object
 * (a boolean only as `additionalProperties` and its kin), `items` is one schema (draft 2020-12: a draft-07 tuple `items: [...]`
 * fails the meta-schema), `type` names JSON types, `required` is a list of strings and every local
 * `$ref` resolves.
 */
export function schemaShapeViolations(parameters: unknown, rules: SchemaShapeRules): string[] {
  if (!isRawSchema(parameters)) return ['#: parameters must be a JSON Schema object'];
  const problems: string[] = [];
  if (parameters.type !== 'object') problems.push('#: the root must have type "object"');
  for (const key of rules.forbiddenAtRoot)
    if (parameters[key] !== undefined) problems.push(`#: ${key} is not allowed at the top level`);
  const refs = new GeminiSchemaRefResolver(parameters);
  const seen = new Set<object>();
  const visit = (schema: unknown, path: string, keyword?: string | number): void => {
    if (typeof schema === 'boolean' && typeof keyword === 'string' && BOOLEAN_ALLOWED.has(keyword)) return;
    if (!isRawSchema(schema)) {
      problems.push(`${path}: a subschema must be a JSON object`);
      return;
    }
    if (seen.has(schema)) return;
    seen.add(schema);
    nodeViolations(schema, path, rules, refs, problems);
    for (const [tokens, child] of childSchemas(schema)) {
      if (tokens[0] === 'items' && tokens.length === 2) continue; // reported once as a tuple by nodeViolations
      visit(child, childPointer(path, ...tokens), tokens[0]);
    }
  };
  visit(parameters, '#');
  return problems;
}

function nodeViolations(
  schema: RawSchema,
  path: string,
  rules: SchemaShapeRules,
  refs: GeminiSchemaRefResolver,
  problems: string[],
): void {
  const types = declaredTypes(schema);
  if (
    schema.type !== undefined &&
    (types.length === 0 || types.length !== (Array.isArray(schema.type) ? schema.type.length : 1))
  ) {
    problems.push(`${path}: type must be a type name or a list of them`);
  }
  for (const type of types)
    if (!JSON_SCHEMA_TYPES.has(type)) problems.push(`${path}: unknown type ${JSON.stringify(type)}`);
  if (Array.isArray(schema.items))
    problems.push(`${path}: items must be one schema (a tuple as a list is draft-07 only)`);
  if (rules.arrayNeedsItems && types.includes('array') && schema.items === undefined)
    problems.push(`${path}: array schema missing items`);
  if (
    schema.required !== undefined &&
    (!Array.isArray(schema.required) || schema.required.some((n) => typeof n !== 'string'))
  ) {
    problems.push(`${path}: required must be a list of property names`);
  }
  if (schema.properties !== undefined && !isRawSchema(schema.properties))
    problems.push(`${path}: properties must be an object`);
  const keyPattern = rules.propertyKeyPattern;
  if (keyPattern && isRawSchema(schema.properties)) {
    for (const key of Object.keys(schema.properties))
      if (!keyPattern.test(key))
        problems.push(
          `${childPointer(path, 'properties')}: key ${JSON.stringify(key)} does not match ${keyPattern.source}`,
        );
  }
  if (schema.$ref !== undefined && (typeof schema.$ref !== 'string' || refs.resolve(schema.$ref) === undefined)) {
    problems.push(`${path}: $ref ${JSON.stringify(schema.$ref)} does not resolve inside the schema`);
  }
}
