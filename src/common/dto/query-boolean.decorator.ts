import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsBoolean } from 'class-validator';

/**
 * A boolean query parameter: `true` or `false`. Any other text (`1`, `yes`, `TRUE`) stays as it is and fails
 * validation with a 400 naming the parameter, rather than being read as false without a word.
 */
export const IsQueryBoolean = () =>
  applyDecorators(
    Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value)),
    IsBoolean({ message: ({ property }) => `${property} must be true or false` }),
  );
