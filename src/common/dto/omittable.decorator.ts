import { applyDecorators } from '@nestjs/common';
import { ValidateBy, ValidateIf } from 'class-validator';

/**
 * An optional field that has no "cleared" value: it may be left out, but `null` is a 400 naming it. (`@IsOptional`
 * lets `null` through to the service, where it reached NOT NULL columns and answered 500.) Use `@IsOptional` only
 * where null means something (e.g. "no description").
 */
export function IsOmittable(): PropertyDecorator {
  return applyDecorators(
    ValidateIf((_o, v) => v !== undefined),
    ValidateBy(
      {
        name: 'isNotNull',
        validator: { validate: (v) => v !== null },
      },
      { message: '$property may be left out but not null; leave it out, or send a value' },
    ),
  );
}

/**
 * `PartialType` options of a PATCH body: a field left out is unchanged, `null` is validated like any value (so a
 * required field cannot be nulled). Fields that are `@IsOptional` in the create body keep accepting null.
 */
export const PATCH_PARTIAL = { skipNullProperties: false } as const;
