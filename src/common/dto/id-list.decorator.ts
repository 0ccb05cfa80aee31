import { applyDecorators } from '@nestjs/common';
import { ArrayMaxSize, IsArray, IsString } from 'class-validator';
import { CharLength } from '@app/common/text/char-length';

/** The ids of stored rows (UUIDs, at most 36 characters), at most `maxItems` of them: one rule wherever a body lists them. */
export const IsIdList = (maxItems: number) =>
  applyDecorators(IsArray(), ArrayMaxSize(maxItems), IsString({ each: true }), CharLength(1, 36, { each: true }));
