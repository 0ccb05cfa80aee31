import { applyDecorators } from '@nestjs/common';
import { ArrayMaxSize, IsArray, IsString, Length } from 'class-validator';

/** The ids of stored rows (UUIDs, at most 36 characters), at most `maxItems` of them: one rule wherever a body lists them. */
export const IsIdList = (maxItems: number) =>
  applyDecorators(IsArray(), ArrayMaxSize(maxItems), IsString({ each: true }), Length(1, 36, { each: true }));
