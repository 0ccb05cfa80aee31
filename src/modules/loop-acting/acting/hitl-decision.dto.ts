import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { CharLength } from '@app/common/text/char-length';
import { IsSafeLine } from '@app/common/safe-text';
import { RESUME_DECISIONS, ResumeDecision } from '../sessions/sessions.dto';

/** `POST /api/v1/admin/hitl/{id}/decision`: an admin's decision on one pending request. */
export class HitlDecisionDto {
  @ApiProperty({
    enum: RESUME_DECISIONS,
    description:
      'TOOL_APPROVAL: APPROVE | REJECT · UNKNOWN_OUTCOME: RETRY | MARK_DONE | REJECT · CHECKPOINT_PAUSE: CONTINUE (or APPROVE: the same; it approves nothing)',
  })
  @IsIn(RESUME_DECISIONS)
  decision: ResumeDecision;

  @ApiPropertyOptional({
    description: "The reviewer's message (a REJECT reason, or the result of MARK_DONE)",
    maxLength: 20000,
  })
  @IsOptional()
  @IsString()
  @CharLength(0, 20000)
  message?: string;

  @ApiProperty({
    description: "Who decides (a person's name or login); recorded with the key id as the request's decidedBy",
    maxLength: 120,
    example: 'alice@acme',
  })
  @IsString()
  @CharLength(1, 120)
  @IsSafeLine()
  reviewer: string;
}
