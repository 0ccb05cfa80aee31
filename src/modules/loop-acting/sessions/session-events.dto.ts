import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { SESSION_EVENT_TYPES } from '@app/modules/session-events/session-event.types';

export class SessionEventsQueryDto {
  @ApiPropertyOptional({ default: 0, minimum: 0, description: 'Events after this seq (nextAfter of the last page)' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  after?: number;

  @ApiPropertyOptional({ default: 100, minimum: 1, maximum: 1000 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;
}

export class SessionEventDto {
  @ApiProperty({ description: "1, 2, 3... per session: the event's place in the session" }) seq: number;
  @ApiProperty({ enum: SESSION_EVENT_TYPES }) type: string;
  @ApiProperty() at: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) data: Record<string, unknown>;
}

export class SessionEventPageDto {
  @ApiProperty({ type: [SessionEventDto] }) items: SessionEventDto[];
  @ApiProperty({ description: 'Pass as `after` to read on' }) nextAfter: number;
}
