import { IsOmittable } from '@app/common/dto/omittable.decorator';
import { IsSafeLine, IsSafeText } from '@app/common/safe-text';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { QueryInteger } from '@app/common/dto/query-integer.decorator';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { CharLength } from '@app/common/text/char-length';
import { TOOL_REQUIREMENTS, ToolRequirement } from '@app/modules/tool-registry/tool-registry.types';
import { SESSION_STATUSES, HITL_REQUEST_TYPES, type SessionStatus } from './session.types';
import { PageMetaDto, PageQueryDto } from '@app/common/dto/page.dto';

/** Characters of a session's task description, at most. */
export const SESSION_TASK_MAX_CHARS = 4000;

export class SessionTaskDto {
  @ApiProperty({
    description: 'What the session is for; skills are matched against it',
    maxLength: SESSION_TASK_MAX_CHARS,
  })
  @IsString()
  @CharLength(1, SESSION_TASK_MAX_CHARS)
  @IsSafeText()
  description: string;

  @ApiPropertyOptional({ description: 'A skill name to use outright', pattern: '^[a-z0-9][a-z0-9-]{0,63}$' })
  @IsOptional()
  @Matches(/^[a-z0-9][a-z0-9-]{0,63}$/, {
    message: 'task.skill must be a skill name: lower-case letters, digits and -',
  })
  skill?: string;
}

export class CreateSessionDto {
  @ApiProperty() @IsString() @CharLength(1, 36) agentId: string;
  @ApiProperty({ example: 'u-42' }) @IsString() @CharLength(1, 128) @IsSafeLine() userId: string;

  @ApiProperty({ type: [String], description: 'Permission tags the user holds for this session' })
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @CharLength(1, 128, { each: true })
  permissions: string[];

  @ApiPropertyOptional({ enum: TOOL_REQUIREMENTS, isArray: true })
  @IsOptional()
  @IsArray()
  @IsIn(TOOL_REQUIREMENTS, { each: true })
  capabilities?: ToolRequirement[];

  @ApiPropertyOptional({ type: SessionTaskDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => SessionTaskDto)
  task?: SessionTaskDto;
}

export class HitlRequestDto {
  @ApiProperty() id: string;
  @ApiProperty({ enum: HITL_REQUEST_TYPES }) requestType: string;
  @ApiProperty() promptMessage: string;
  @ApiProperty({ nullable: true, type: String }) toolName: string | null;
  @ApiProperty({ nullable: true, type: String }) toolCallId: string | null;
  @ApiProperty({
    nullable: true,
    type: 'object',
    additionalProperties: true,
    description: 'Arguments of the call, redacted for display; null for a CHECKPOINT_PAUSE (no call)',
  })
  toolParams: unknown;
  @ApiProperty() triggerReason: string;
  @ApiProperty() iteration: number;
}

export class SessionDto {
  @ApiProperty() id: string;
  @ApiProperty() agentId: string;
  @ApiProperty() userId: string;
  @ApiProperty({ enum: SESSION_STATUSES }) status: string;
  @ApiProperty() iteration: number;
  @ApiProperty() hitlPending: boolean;
  @ApiProperty({ type: HitlRequestDto, nullable: true }) hitlRequest: HitlRequestDto | null;
  @ApiProperty({ type: 'array', items: { type: 'object' } }) todoList: unknown[];
  @ApiProperty({ nullable: true, type: 'object', additionalProperties: true }) activeSkill: unknown;
  @ApiProperty({ nullable: true, type: SessionTaskDto }) task: SessionTaskDto | null;
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
}

export const RESUME_DECISIONS = ['APPROVE', 'REJECT', 'RETRY', 'MARK_DONE', 'CONTINUE'] as const;
export type ResumeDecision = (typeof RESUME_DECISIONS)[number];

export class ResumeDto {
  @ApiProperty({
    description:
      'Idempotency key of this resume: the same id again returns the same response (the prefix admin-decision: is reserved)',
    maxLength: 120,
  })
  @IsString()
  @CharLength(1, 120)
  // Admin decisions are recorded under `admin-decision:<requestId>` in the same session (hitl-decision.service.ts).
  @Matches(/^(?!admin-decision:)/, {
    message: 'clientMessageId may not start with admin-decision: (reserved for admin decisions)',
  })
  clientMessageId: string;

  @ApiPropertyOptional({
    description: "The reviewer's message (a REJECT reason, or the result of MARK_DONE)",
    maxLength: 20000,
  })
  @IsOptional()
  @IsString()
  @CharLength(0, 20000)
  message?: string;

  @ApiPropertyOptional({ description: 'Must be the pending toolCallId when given' })
  @IsOmittable()
  @IsString()
  @CharLength(1, 128)
  toolCallId?: string;

  @ApiPropertyOptional({
    enum: RESUME_DECISIONS,
    description:
      'TOOL_APPROVAL: APPROVE (default) | REJECT · UNKNOWN_OUTCOME: RETRY | MARK_DONE | REJECT (required) · CHECKPOINT_PAUSE: omit, CONTINUE or APPROVE (the same: it approves nothing)',
  })
  // null is not "left out": a TOOL_APPROVAL resume with decision null approved the call (APPROVE is the default).
  @IsOmittable()
  @IsIn(RESUME_DECISIONS)
  decision?: ResumeDecision;
}

export class ActResultDto {
  @ApiProperty() toolCallId: string;
  @ApiProperty() toolName: string;
  @ApiProperty({ enum: ['COMPLETED', 'FAILED', 'REJECTED', 'PENDING_APPROVAL', 'NOT_RUN'] }) status: string;
  @ApiProperty() content: string;
  @ApiProperty() isError: boolean;
  @ApiProperty() reused: boolean;
  @ApiProperty() attempts: number;
  @ApiProperty() durationMs: number;
  @ApiProperty() totalChars: number;
  @ApiProperty() truncated: boolean;
  @ApiProperty({ nullable: true, type: String, description: 'Error class of the structured block (null on success)' })
  errorClass: string | null;
}

export class ActResponseDto {
  @ApiProperty({ enum: ['COMPLETED', 'INTERRUPTED'] }) status: 'COMPLETED' | 'INTERRUPTED';
  @ApiProperty({ type: [ActResultDto] }) results: ActResultDto[];
  @ApiPropertyOptional({ type: HitlRequestDto }) hitlRequest?: HitlRequestDto;
}

export class ToolResultQueryDto {
  @ApiPropertyOptional({ default: 0, minimum: 0 }) @IsOptional() @QueryInteger() @IsInt() @Min(0) offset?: number;
  @ApiPropertyOptional({ default: 4000, minimum: 1, maximum: 100000 })
  @IsOptional()
  @QueryInteger()
  @IsInt()
  @Min(1)
  @Max(100_000)
  limit?: number;
}

export class ToolResultPageDto {
  @ApiProperty() toolCallId: string;
  @ApiProperty() offset: number;
  @ApiProperty() limit: number;
  @ApiProperty() totalChars: number;
  @ApiProperty() content: string;
  @ApiProperty() hasMore: boolean;
}

export class AdminSessionsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: SESSION_STATUSES })
  @IsOptional()
  @IsIn(SESSION_STATUSES)
  status?: SessionStatus;

  @ApiPropertyOptional() @IsOptional() @IsString() @CharLength(1, 36) agentId?: string;

  @ApiPropertyOptional({ description: 'Platform key only (a tenant key always lists its own tenant)' })
  @IsOptional()
  @IsString()
  @CharLength(1, 64)
  tenantId?: string;
}

export class AdminSessionDto extends SessionDto {
  @ApiProperty() tenantId: string;
  @ApiProperty({ enum: TOOL_REQUIREMENTS, isArray: true }) capabilities: string[];
}

export class AdminSessionPageDto extends PageMetaDto {
  @ApiProperty({ type: [AdminSessionDto] }) items: AdminSessionDto[];
}
