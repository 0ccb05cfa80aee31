import { AfterSeqQueryDto } from '@app/common/dto/page.dto';
import { ApiProperty } from '@nestjs/swagger';
import { SESSION_EVENT_TYPES } from '@app/modules/session-events/session-event.types';

/** Events default to 100 per page, messages to 500. */
export class SessionEventsQueryDto extends AfterSeqQueryDto {}

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
