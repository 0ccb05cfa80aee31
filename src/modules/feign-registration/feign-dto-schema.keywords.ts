import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import type { JsonSchema } from '@app/modules/tool-registry/tool-registry.types';

/** The @ApiProperty options the converter reads (as @nestjs/swagger stores them). */
export interface SwaggerPropertyMetadata {
  type?: unknown;
  isArray?: boolean;
  required?: boolean;
  enum?: unknown[];
  items?: JsonSchema;
  [keyword: string]: unknown;
}

/** Swagger keywords that describe the property as a whole (on the array when the property is one). */
const PROPERTY_KEYWORDS = ['description', 'default', 'minItems', 'maxItems', 'uniqueItems', 'deprecated'];
/** Swagger keywords that describe one value (on the items when the property is an array). */
const VALUE_KEYWORDS = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
];

export function swaggerKeywords(meta: SwaggerPropertyMetadata | undefined, part: 'property' | 'value'): JsonSchema {
  const out: JsonSchema = {};
  if (!meta) return out;
  for (const key of part === 'property' ? PROPERTY_KEYWORDS : VALUE_KEYWORDS) {
    if (meta[key] !== undefined) out[key] = meta[key];
  }
  return out;
}

/** The JSON Schema type a class-validator type check implies. */
export function typeFromValidators(validators: ValidationMetadata[]): string | undefined {
  const names = new Set(validators.map((v) => v.name));
  if (names.has('isInt')) return 'integer';
  if (names.has('isNumber') || names.has('isPositive') || names.has('isNegative')) return 'number';
  if (names.has('isBoolean')) return 'boolean';
  if (names.has('isObject')) return 'object';
  const stringChecks = [
    'isString',
    'isEmail',
    'isUUID',
    'isUrl',
    'isDateString',
    'isISO8601',
    'matches',
    'isLength',
    'minLength',
    'maxLength',
    'isNotEmpty',
  ];
  if (stringChecks.some((n) => names.has(n))) return 'string';
  return undefined;
}

/** The allowed values an @IsIn / @IsEnum declares. */
export function enumFromValidators(validators: ValidationMetadata[]): unknown[] | undefined {
  for (const v of validators) {
    if (v.name === 'isIn' && Array.isArray(v.constraints?.[0])) return v.constraints[0] as unknown[];
    if (v.name === 'isEnum')
      return Array.isArray(v.constraints?.[1]) ? (v.constraints[1] as unknown[]) : enumValues(v.constraints?.[0]);
  }
  return undefined;
}

/** Values of a TypeScript enum object (numeric enums carry reverse mappings, skipped). */
export function enumValues(entity: unknown): unknown[] {
  if (Array.isArray(entity)) return entity;
  const obj = (entity ?? {}) as Record<string, unknown>;
  return Object.keys(obj)
    .filter((k) => !/^\d+$/.test(k))
    .map((k) => obj[k]);
}

/** Keywords of one value from class-validator constraints (`@Min`, `@Length`, `@Matches`, `@IsEmail`, ...). */
export function valueKeywordsFromValidators(validators: ValidationMetadata[]): JsonSchema {
  const out: JsonSchema = {};
  for (const v of validators) {
    const [a, b] = (v.constraints ?? []) as unknown[];
    switch (v.name) {
      case 'min':
        out.minimum = a;
        break;
      case 'max':
        out.maximum = a;
        break;
      case 'isPositive':
        out.exclusiveMinimum = 0;
        break;
      case 'isNegative':
        out.exclusiveMaximum = 0;
        break;
      case 'isLength':
        out.minLength = a;
        if (typeof b === 'number') out.maxLength = b;
        break;
      case 'minLength':
        out.minLength = a;
        break;
      case 'maxLength':
        out.maxLength = a;
        break;
      case 'isNotEmpty':
        out.minLength ??= 1;
        break;
      case 'matches':
        out.pattern = a instanceof RegExp ? a.source : String(a);
        break;
      case 'isEmail':
        out.format = 'email';
        break;
      case 'isUUID':
        out.format = 'uuid';
        break;
      case 'isUrl':
        out.format = 'uri';
        break;
      case 'isDateString':
      case 'isISO8601':
        out.format = 'date-time';
        break;
    }
  }
  return out;
}

/** Keywords of the array itself (`@ArrayMinSize`, `@ArrayMaxSize`, `@ArrayUnique`). */
export function arrayKeywordsFromValidators(validators: ValidationMetadata[]): JsonSchema {
  const out: JsonSchema = {};
  for (const v of validators) {
    if (v.name === 'arrayMinSize') out.minItems = v.constraints[0];
    if (v.name === 'arrayMaxSize') out.maxItems = v.constraints[0];
    if (v.name === 'arrayUnique') out.uniqueItems = true;
  }
  return out;
}
