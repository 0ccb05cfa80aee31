import { AfterSeqQueryDto } from '@app/common/dto/page.dto';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, Matches } from 'class-validator';
import { CharLength } from '@app/common/text/char-length';
import { HitlRequestDto } from '@app/modules/loop-acting/sessions/sessions.dto';
import { MESSAGE_ROLES, RUN_STATUSES } from './agent-runs.types';

export class PostMessageDto {
  @ApiProperty({ maxLength: 128, description: 'Idempotency key: the same one again answers with the same run' })
  @IsString()
  @CharLength(1, 128)
  @Matches(/^[\x21-\x7e]+$/, { message: 'clientMessageId must be printable ASCII without spaces' })
  clientMessageId: string;

  @ApiProperty({ maxLength: 200_000, description: "The user's message" })
  @IsString()
  @CharLength(1, 200_000)
  content: string;

  @ApiPropertyOptional({ default: false, description: 'Answer 200 when the run stops instead of 202 at once' })
  @IsOptional()
  @IsBoolean()
  wait?: boolean;
}

export class RunDto {
  @ApiProperty() runId: string;
  @ApiProperty({
    enum: RUN_STATUSES.filter((s) => s !== 'QUEUED'),
    description: 'A run waiting for a worker shows as RUNNING',
  })
  status: string;
  @ApiPropertyOptional({ description: "The model's final answer (COMPLETED)" }) answer?: string;
  @ApiPropertyOptional({ description: 'Why the run FAILED' }) error?: string;
  @ApiPropertyOptional({
    description:
      "Why the model's final answer ended, when not as the model meant it: `length` (cut at the provider's token limit: the answer is incomplete), `content_filter` (the provider withheld part of it), or the provider's own reason",
  })
  finishReason?: string;
  @ApiPropertyOptional({ type: HitlRequestDto, description: 'What the run waits for (INTERRUPTED, PAUSED)' })
  hitlRequest?: HitlRequestDto;
  @ApiProperty({ description: 'Model rounds so far' }) iterations: number;
}

export class MessageToolCallDto {
  @ApiProperty({ description: "The model's tool call id" }) id: string;
  @ApiProperty({ description: 'The journal key (the id, qualified when the model repeated one in the session)' })
  key: string;
  @ApiProperty() name: string;
  @ApiProperty({ description: 'As the model emitted them (a JSON string)' }) arguments: string;
  @ApiPropertyOptional({
    description:
      "true when the model's answer was cut at its token limit before these arguments were complete: the call did not run",
  })
  truncated?: boolean;
}

export class MessageDto {
  @ApiProperty({ description: '1, 2, 3... per session' }) seq: number;
  @ApiProperty() runId: string;
  @ApiProperty({ enum: MESSAGE_ROLES }) role: string;
  @ApiProperty({ nullable: true, type: String }) content: string | null;
  @ApiPropertyOptional({ type: [MessageToolCallDto] }) toolCalls?: MessageToolCallDto[];
  @ApiPropertyOptional({ description: 'role tool: the tool call it answers' }) toolCallId?: string;
  @ApiProperty() createdAt: string;
}

/** Events default to 100 per page, messages to 500. */
export class MessagesQueryDto extends AfterSeqQueryDto {}

export class MessagePageDto {
  @ApiProperty({ type: [MessageDto] }) items: MessageDto[];
  @ApiProperty({ description: 'Pass as `after` to read on' }) nextAfter: number;
}
