import { GeminiSchemaRefResolver } from './gemini-schema-ref.resolver';
import { openAiSpecViolations } from './openai-spec.validator';
import {
  JSON_SCHEMA_TYPES,
  RawSchema,
  childPointer,
  declaredTypes,
  isRawSchema,
  typesTake,
} from './tool-spec-schema.walk';

/**
 * OpenAI Structured Outputs, "Supported schemas" (platform.openai.com/docs/guides/structured-outputs),
 * which `strict: true` function calling enforces:
 * - types: string, number, boolean, integer, object, array, enum, anyOf (and null in a type list);
 *   the root is an object and not an `anyOf`;
 * - supported properties: strings `pattern`, `format` (the formats below); numbers `multipleOf`,
 *   `maximum`, `exclusiveMaximum`, `minimum`, `exclusiveMinimum`; arrays `minItems`, `maxItems`;
 *   `$defs`/`$ref` definitions; anything else (allOf, not, if/then/else, patternProperties, minLength...)
 *   is not supported;
 * - "all fields must be required" and "additionalProperties: false must always be set in objects";
 * - `enum` and `const` hold primitive values (the documented examples; object values are not supported), each one
 *   its node's declared type takes ("enum value 0 does not validate against {'type': ['string', 'null']}");
 * - a `$ref` stands alone ("$ref cannot have keywords {'description'}");
 * - the objects of one `anyOf` do not share an identical first key (the same name with the same schema): "Objects
 *   provided via 'anyOf' must not share identical first keys. Consider adding a discriminator key or rearranging the
 *   properties to ensure the first key is unique" (reported for o1 and later models; a discriminator first, with a
 *   `const` or `enum` of its own in each object, is accepted);
 * - limits: 5000 object properties in all, 10 levels of nesting, 1000 enum values in all, 120,000
 *   characters of property names, definition names, enum and const values, and 15,000 characters of
 *   values for one enum of more than 250 values.
 */
export const OPENAI_STRICT_FORMATS = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);
const STRICT_KEYWORDS = new Set([
  'type',
  'description',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  'enum',
  'const',
  '$ref',
  '$defs',
  'definitions',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);
const OPENAI_STRICT_LIMITS = {
  properties: 5000,
  depth: 10,
  enumValues: 1000,
  chars: 120_000,
  bigEnum: 250,
  bigEnumChars: 15_000,
} as const;

interface Tally {
  properties: number;
  enumValues: number;
  chars: number;
}

/** Why OpenAI would refuse `spec` as a strict function, as `pointer: problem`; empty when it accepts it. */
export function openAiStrictSpecViolations(spec: unknown): string[] {
  const problems = openAiSpecViolations(spec);
  if (problems.length > 0) return problems;
  const fn = (spec as { function: RawSchema }).function;
  if (fn.strict !== true) problems.push('strict: must be true');
  const parameters = fn.parameters as RawSchema;
  const tally: Tally = { properties: 0, enumValues: 0, chars: 0 };
  const refs = new GeminiSchemaRefResolver(parameters);
  for (const key of ['$defs', 'definitions'] as const) {
    const defs = parameters[key];
    if (isRawSchema(defs)) {
      for (const [name, def] of Object.entries(defs)) {
        tally.chars += name.length;
        strictNode(def, childPointer('#', key, name), 1, refs, tally, problems);
      }
    }
  }
  strictNode(parameters, '#', 0, refs, tally, problems);
  if (tally.properties > OPENAI_STRICT_LIMITS.properties)
    problems.push(`#: more than ${OPENAI_STRICT_LIMITS.properties} object properties`);
  if (tally.enumValues > OPENAI_STRICT_LIMITS.enumValues)
    problems.push(`#: more than ${OPENAI_STRICT_LIMITS.enumValues} enum values`);
  if (tally.chars > OPENAI_STRICT_LIMITS.chars)
    problems.push(`#: more than ${OPENAI_STRICT_LIMITS.chars} characters of names and values`);
  return problems;
}

function strictNode(
  schema: unknown,
  path: string,
  depth: number,
  refs: GeminiSchemaRefResolver,
  tally: Tally,
  problems: string[],
): void {
  if (!isRawSchema(schema)) {
    problems.push(`${path}: a subschema must be a JSON object`);
    return;
  }
  for (const key of Object.keys(schema))
    if (!STRICT_KEYWORDS.has(key)) problems.push(`${path}: keyword ${key} is not supported in strict mode`);
  if (path === '#' && schema.anyOf !== undefined) problems.push('#: the root must not be an anyOf');
  const types = declaredTypes(schema);
  for (const type of types)
    if (!JSON_SCHEMA_TYPES.has(type)) problems.push(`${path}: unknown type ${JSON.stringify(type)}`);
  const typed =
    types.length > 0 ||
    schema.anyOf !== undefined ||
    schema.enum !== undefined ||
    schema.const !== undefined ||
    schema.$ref !== undefined;
  if (!typed) problems.push(`${path}: no type (strict mode has no "any" schema)`);
  if (typeof schema.$ref === 'string' && refs.resolve(schema.$ref) === undefined)
    problems.push(`${path}: $ref does not resolve`);
  const besideRef = schema.$ref === undefined ? [] : Object.keys(schema).filter((key) => key !== '$ref');
  if (besideRef.length > 0) problems.push(`${path}: $ref cannot have keywords beside it (${besideRef.join(', ')})`);
  if (typeof schema.format === 'string' && !OPENAI_STRICT_FORMATS.has(schema.format))
    problems.push(`${path}: format ${schema.format} is not supported`);
  if (typeof schema.pattern === 'string' && hasRegexLookaround(schema.pattern))
    problems.push(
      `${path}: pattern uses a regex lookaround ((?=, (?!, (?<=, (?<!), which strict mode does not support`,
    );
  tallyValues(schema, path, tally, problems);
  const refused = (values: unknown[]) => (types.length > 0 ? values.filter((v) => !typesTake(types, v)) : []);
  for (const value of refused(Array.isArray(schema.enum) ? schema.enum : []))
    problems.push(
      `${path}: enum value ${JSON.stringify(value)} does not validate against its type (${types.join(', ')})`,
    );
  for (const value of refused(schema.const === undefined ? [] : [schema.const]))
    problems.push(
      `${path}: const value ${JSON.stringify(value)} does not validate against its type (${types.join(', ')})`,
    );

  if (types.includes('object') || schema.properties !== undefined)
    strictObject(schema, path, depth, refs, tally, problems);
  if (types.includes('array')) {
    if (!isRawSchema(schema.items)) problems.push(`${path}: array schema missing items`);
    else strictNode(schema.items, childPointer(path, 'items'), depth, refs, tally, problems);
  }
  if (schema.anyOf !== undefined) {
    if (!Array.isArray(schema.anyOf) || schema.anyOf.length === 0)
      problems.push(`${path}: anyOf must be a non-empty list`);
    else {
      schema.anyOf.forEach((member, i) =>
        strictNode(member, childPointer(path, 'anyOf', i), depth, refs, tally, problems),
      );
      const clash = sharedFirstKey(schema.anyOf);
      if (clash)
        problems.push(
          `${childPointer(path, 'anyOf')}: objects ${clash.first} and ${clash.second} share an identical first key ` +
            `${JSON.stringify(clash.key)}, which strict mode refuses ("Objects provided via 'anyOf' must not share ` +
            'identical first keys")',
        );
    }
  }
}

/** A property as strict mode compares first keys: its name and its schema. */
export function propertySignature(name: string, schema: unknown): string {
  return JSON.stringify([name, schema]);
}

/** The first two objects of `members` whose first properties are identical (name and schema), by position. */
function sharedFirstKey(members: unknown[]): { first: number; second: number; key: string } | undefined {
  const seen = new Map<string, number>();
  for (let i = 0; i < members.length; i++) {
    const member = members[i];
    const entry =
      isRawSchema(member) && isRawSchema(member.properties) ? Object.entries(member.properties)[0] : undefined;
    if (!entry) continue;
    const signature = propertySignature(...entry);
    const first = seen.get(signature);
    if (first !== undefined) return { first, second: i, key: entry[0] };
    seen.set(signature, i);
  }
  return undefined;
}

function strictObject(
  schema: RawSchema,
  path: string,
  depth: number,
  refs: GeminiSchemaRefResolver,
  tally: Tally,
  problems: string[],
): void {
  if (depth + 1 > OPENAI_STRICT_LIMITS.depth)
    problems.push(`${path}: nested deeper than ${OPENAI_STRICT_LIMITS.depth} levels`);
  if (schema.additionalProperties !== false) problems.push(`${path}: additionalProperties must be false`);
  const properties = isRawSchema(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  for (const name of Object.keys(properties))
    if (!required.includes(name)) problems.push(`${path}: property ${name} must be listed in required`);
  for (const name of required)
    if (typeof name !== 'string' || !Object.hasOwn(properties, name))
      problems.push(`${path}: required ${String(name)} is not a property`);
  for (const [name, child] of Object.entries(properties)) {
    tally.properties += 1;
    tally.chars += name.length;
    strictNode(child, childPointer(path, 'properties', name), depth + 1, refs, tally, problems);
  }
}

/**
 * Whether a `pattern` holds a lookahead or lookbehind group: OpenAI refuses the whole request with "Invalid JSON schema:
 * regex lookaround is not supported. Found at $.properties.x.pattern" (strict functions and the Responses API), although
 * its documented subset lists `pattern`. Escaped characters and character classes (`\(?=`, `[(?=]`) are not groups.
 */
export function hasRegexLookaround(pattern: string): boolean {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(' && pattern[i + 1] === '?' && /^(?:[=!]|<[=!])/.test(pattern.slice(i + 2, i + 4))) return true;
  }
  return false;
}

const isPrimitive = (value: unknown) => value === null || ['string', 'number', 'boolean'].includes(typeof value);

function tallyValues(schema: RawSchema, path: string, tally: Tally, problems: string[]): void {
  if (Array.isArray(schema.enum) && !schema.enum.every(isPrimitive))
    problems.push(`${path}: enum values must be strings, numbers, booleans or null`);
  if (schema.const !== undefined && !isPrimitive(schema.const))
    problems.push(`${path}: const must be a string, number, boolean or null`);
  if (Array.isArray(schema.enum)) {
    tally.enumValues += schema.enum.length;
    const chars = schema.enum.reduce<number>((sum, value) => sum + String(value).length, 0);
    tally.chars += chars;
    if (schema.enum.length > OPENAI_STRICT_LIMITS.bigEnum && chars > OPENAI_STRICT_LIMITS.bigEnumChars) {
      problems.push(
        `${path}: an enum of more than ${OPENAI_STRICT_LIMITS.bigEnum} values holds more than ${OPENAI_STRICT_LIMITS.bigEnumChars} characters`,
      );
    }
  }
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a const that is not a primitive was reported above
  if (schema.const !== undefined) tally.chars += String(schema.const).length;
}
