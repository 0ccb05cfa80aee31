import { DECORATORS } from '@nestjs/swagger';
import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import type { JsonSchema } from '@app/modules/tool-registry/tool-registry.types';
import {
  arrayKeywordsFromValidators,
  enumFromValidators,
  SwaggerPropertyMetadata,
  swaggerKeywords,
  typeFromValidators,
  valueKeywordsFromValidators,
} from './feign-dto-schema.keywords';

type DtoClass = (abstract new (...args: never[]) => unknown) & { prototype: object };
type ValueType = { type: string; format?: string } | { dto: DtoClass };

/**
 * Turns a DTO class into the JSON Schema of a tool's arguments, from its `@nestjs/swagger` property
 * metadata and class-validator decorators: string / number / integer / boolean / enum / arrays / nested
 * DTOs; a property is optional with `@IsOptional()` or `@ApiPropertyOptional()`, else required. The result
 * forbids unknown properties. Throws, naming the property, when a type cannot be told.
 */
export function jsonSchemaFromDto(dto: DtoClass): JsonSchema {
  return objectSchema(dto, []);
}

function objectSchema(dto: DtoClass, stack: DtoClass[]): JsonSchema {
  if (stack.includes(dto)) {
    throw new Error(
      `${[...stack, dto].map((c) => c.name).join(' → ')}: recursive DTOs cannot become a tool schema; give the parameters as a JSON Schema.`,
    );
  }
  const validations = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const name of propertyNames(dto, validations)) {
    const swagger = Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, dto.prototype, name) as
      SwaggerPropertyMetadata | undefined;
    const validators = validations.filter((v) => v.propertyName === name);
    properties[name] = propertySchema(dto, name, swagger, validators, [...stack, dto]);
    const optional = swagger?.required === false || validators.some((v) => v.name === 'isOptional');
    if (!optional) required.push(name);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

function propertyNames(dto: DtoClass, validations: ValidationMetadata[]): string[] {
  const fromSwagger = (
    (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, dto.prototype) as string[] | undefined) ?? []
  ).map((k) => k.replace(/^:/, ''));
  return [...new Set([...fromSwagger, ...validations.map((v) => v.propertyName)])];
}

function propertySchema(
  dto: DtoClass,
  name: string,
  swagger: SwaggerPropertyMetadata | undefined,
  validators: ValidationMetadata[],
  stack: DtoClass[],
): JsonSchema {
  // TypeScript emits Object for `unknown`, `any` and interfaces alike: no evidence of a type.
  const designType = Reflect.getMetadata('design:type', dto.prototype, name) as unknown;
  const isArray =
    swagger?.isArray === true ||
    swagger?.type === 'array' ||
    designType === Array ||
    validators.some((v) => v.name === 'isArray');
  const declared = swagger?.type === 'array' ? swagger.items?.type : swagger?.type;
  const transformed = defaultMetadataStorage.findTypeMetadata(dto, name)?.typeFunction();
  const type =
    resolveType(declared) ??
    resolveType(transformed) ??
    validatorType(validators) ??
    (isArray || designType === Object ? undefined : resolveType(designType));
  const enumValues = swagger?.enum ?? (swagger?.items?.enum as unknown[] | undefined) ?? enumFromValidators(validators);

  let value: JsonSchema;
  if (type && 'dto' in type) {
    value = objectSchema(type.dto, stack);
  } else {
    // TypeScript has one `number`; @IsInt() is what says a whole number is meant.
    const base =
      type?.type === 'number' && validators.some((v) => v.name === 'isInt')
        ? 'integer'
        : (type?.type ?? inferEnumType(enumValues));
    if (!base) {
      throw new Error(
        `${dto.name}.${name}: cannot tell its type; add @ApiProperty({ type: ... }) or a class-validator type check such as @IsString().`,
      );
    }
    value = {
      type: base,
      ...(type?.format ? { format: type.format } : {}),
      ...valueKeywordsFromValidators(validators),
      ...swaggerKeywords(swagger, 'value'),
    };
    if (enumValues) value.enum = enumValues;
  }
  if (!isArray) return { ...value, ...swaggerKeywords(swagger, 'property') };
  return {
    type: 'array',
    items: value,
    ...arrayKeywordsFromValidators(validators),
    ...swaggerKeywords(swagger, 'property'),
  };
}

function resolveType(ref: unknown): ValueType | undefined {
  if (ref === undefined || ref === null || ref === Array || ref === 'array') return undefined;
  if (typeof ref === 'string')
    return ['string', 'number', 'integer', 'boolean', 'object'].includes(ref) ? { type: ref } : undefined;
  if (ref === String) return { type: 'string' };
  if (ref === Number) return { type: 'number' };
  if (ref === Boolean) return { type: 'boolean' };
  if (ref === Date) return { type: 'string', format: 'date-time' };
  if (ref === Object) return { type: 'object' };
  if (typeof ref !== 'function') return undefined;
  // An arrow function (no prototype) is a lazy type reference, `type: () => AddressDto`.
  if (!ref.prototype) return resolveType((ref as () => unknown)());
  return { dto: ref as DtoClass };
}

function validatorType(validators: ValidationMetadata[]): ValueType | undefined {
  const type = typeFromValidators(validators);
  return type ? { type } : undefined;
}

function inferEnumType(values: unknown[] | undefined): string | undefined {
  if (!values?.length) return undefined;
  if (values.every((v) => typeof v === 'string')) return 'string';
  if (values.every((v) => Number.isInteger(v))) return 'integer';
  if (values.every((v) => typeof v === 'number')) return 'number';
  return undefined;
}
