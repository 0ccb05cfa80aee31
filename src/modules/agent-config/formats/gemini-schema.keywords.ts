/**
 * What a Gemini function-declaration schema may hold (the OpenAPI 3.0 subset of its `Schema` proto),
 * and the intermediate shape the rewrite builds before it is pruned per type.
 */
export const GEMINI_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'] as const;
export type GeminiType = (typeof GEMINI_TYPES)[number];

export function isGeminiType(value: unknown): value is GeminiType {
  return typeof value === 'string' && (GEMINI_TYPES as readonly string[]).includes(value);
}

/** The `format` values Gemini documents, per type; any other format is dropped. */
export const GEMINI_FORMATS: Readonly<Partial<Record<GeminiType, readonly string[]>>> = {
  string: ['enum', 'date-time'],
  number: ['float', 'double'],
  integer: ['int32', 'int64'],
};

/**
 * The keywords the rewrite reads into a draft or turns into another shape (unions, refs, tuples, maps), and those
 * that tell the model nothing (annotations for tools and editors). Any other keyword (`multipleOf`, `uniqueItems`,
 * `not`, `if`, `default`, `examples`...) has no place in Gemini's schema and is written into the description instead.
 */
export const GEMINI_READ_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'title',
  'description',
  'nullable',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'required',
  'enum',
  'const',
  'properties',
  'additionalProperties',
  'patternProperties',
  'items',
  'prefixItems',
  'additionalItems',
  '$ref',
  'allOf',
  'anyOf',
  'oneOf',
]);
export const GEMINI_SILENT_KEYWORDS: ReadonlySet<string> = new Set([
  '$schema',
  '$id',
  '$comment',
  '$anchor',
  '$dynamicAnchor',
  '$defs',
  'definitions',
  'deprecated',
  'readOnly',
  'writeOnly',
  'contentMediaType',
  'contentEncoding',
]);

/** Bounds on the work for one schema: refs are inlined, so a hostile schema could otherwise explode. */
export const GEMINI_MAX_SCHEMA_DEPTH = 64;
export const GEMINI_MAX_SCHEMA_NODES = 10_000;

const RECURSIVE_DESCRIPTION = '(recursive)';
const TRUNCATED_DESCRIPTION = '(truncated)';

/**
 * A schema after refs, `allOf`, unions, `const` and type arrays are resolved, before it is pruned to
 * what its type allows. Only keywords listed here survive the first pass.
 */
export interface SchemaDraft {
  type?: GeminiType;
  title?: string;
  description?: string;
  nullable?: boolean;
  format?: string;
  properties?: Record<string, SchemaDraft>;
  required?: string[];
  items?: SchemaDraft;
  anyOf?: SchemaDraft[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  /** What Gemini has no keyword for (`uniqueItems: true`), written into the description; united by merges. */
  notes?: string[];
  /** The keywords among `notes` (`uniqueItems`), each named in a warning; united by merges. */
  moved?: string[];
  /** Where the node is written in the tool's schema (a JSON pointer, `#` the root), for warnings; never emitted. */
  pointer?: string;
}

/** Stands in for a `$ref` back into a schema that is still being expanded. */
export function recursivePlaceholder(pointer: string): SchemaDraft {
  return { type: 'object', description: RECURSIVE_DESCRIPTION, pointer };
}

/** Stands in for what lies beyond the depth or size bound. */
export function truncatedPlaceholder(pointer: string): SchemaDraft {
  return { type: 'object', description: TRUNCATED_DESCRIPTION, pointer };
}

/** The keywords that mean something for each type; the rest are pruned once the type is known. */
export const GEMINI_TYPE_KEYWORDS: Readonly<Record<GeminiType, readonly (keyof SchemaDraft)[]>> = {
  string: ['enum', 'format', 'minLength', 'maxLength', 'pattern'],
  number: ['enum', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'],
  integer: ['enum', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'],
  boolean: ['enum'],
  array: ['items', 'minItems', 'maxItems'],
  object: ['properties', 'required'],
};
