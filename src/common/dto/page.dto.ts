import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { IsQuerySeq, SEQ_MAX, SEQ_RANGE } from './query-seq.decorator';
import { QueryInteger } from './query-integer.decorator';

/** Highest `page` accepted: its offset (page x 500) stays an exact integer every database takes. */
const MAX_PAGE = 1_000_000;

/** `page` (1..1,000,000, 1-based) and `pageSize` (1..500) of every list endpoint. */
export class PageQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE, default: 1 })
  @IsOptional()
  @QueryInteger()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE)
  page?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 500, default: 50 })
  @IsOptional()
  @QueryInteger()
  @IsInt()
  @Min(1)
  @Max(500)
  pageSize?: number;
}

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  pageSize: number;
}

export function pageOf<T>(items: T[], total: number, query: PageQueryDto): Page<T> {
  return { items, total, page: query.page ?? 1, pageSize: query.pageSize ?? 50 };
}

export function pageWindow(query: PageQueryDto): { skip: number; take: number } {
  const pageSize = query.pageSize ?? 50;
  return { skip: ((query.page ?? 1) - 1) * pageSize, take: pageSize };
}

/** Swagger shape of `{items,total,page,pageSize}` lists. */
export class PageMetaDto {
  @ApiProperty() total: number;
  @ApiProperty() page: number;
  @ApiProperty() pageSize: number;
}

/**
 * `after` (a seq already read, 0 for the start, at most SEQ_MAX) and `limit` (1..1,000) of the per-session logs that
 * grow at the end (events, messages): a reader pages on with the `nextAfter` of the previous page.
 */
export class AfterSeqQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    default: 0,
    minimum: 0,
    maximum: SEQ_MAX,
    description: `Entries after this seq (nextAfter of the last page): ${SEQ_RANGE}, else 400`,
  })
  @IsOptional()
  @IsQuerySeq()
  after?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 1000, description: 'At most this many (default: the endpoint says)' })
  @IsOptional()
  @QueryInteger()
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;
}
