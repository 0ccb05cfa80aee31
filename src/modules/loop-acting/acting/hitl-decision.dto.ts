import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';
import { RESUME_DECISIONS, ResumeDecision } from '../sessions/sessions.dto';

/** `POST /api/v1/admin/hitl/{id}/decision`: an admin's decision on one pending request. */
export class HitlDecisionDto {
  @ApiProperty({ enum: RESUME_DECISIONS, description: 'TOOL_APPROVAL: APPROVE | REJECT · UNKNOWN_OUTCOME: RETRY | MARK_DONE | REJECT · CHECKPOINT_PAUSE: CONTINUE' })
  @IsIn(RESUME_DECISIONS)
  decision: ResumeDecision;

  @ApiPropertyOptional({ description: 'The reviewer\'s message (a REJECT reason, or the result of MARK_DONE)', maxLength: 20000 })
  @IsOptional()
  @IsString()
  @Length(0, 20000)
  message?: string;

  @ApiProperty({ description: 'Who decides (a person\'s name or login); recorded with the key id as the request\'s decidedBy', maxLength: 120, example: 'alice@acme' })
  @IsString()
  @Length(1, 120)
  // No control or bidi-override characters: the name is shown to other reviewers.
  @Matches(/^[^\p{Cc}\u202A-\u202E\u2066-\u2069]+$/u, { message: 'reviewer must be printable text (no control or bidi-override characters)' })
  reviewer: string;
}
