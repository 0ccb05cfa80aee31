import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiTags, ApiOperation } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { QueryInteger } from '@app/common/dto/query-integer.decorator';
import { PageMetaDto, PageQueryDto, pageOf, pageWindow } from '@app/common/dto/page.dto';
import { toIso } from '@app/database/epoch-ms.transformer';
import { HitlRequestsRepository } from './hitl-requests.repository';
import { HITL_REQUEST_STATUSES, HitlRequestEntity } from './hitl-request.entity';
import { previewParams, previewText } from './hitl-request.preview';

/** Queue pages are smaller than other lists: each entry carries a preview of up to 4,000 characters of arguments. */
const HITL_QUEUE_MAX_PAGE_SIZE = 100;

class HitlQueueQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: HITL_REQUEST_STATUSES, description: 'PENDING or DECIDED; omit for all' })
  @IsOptional()
  @IsIn(HITL_REQUEST_STATUSES)
  status?: 'PENDING' | 'DECIDED';

  @ApiPropertyOptional({ minimum: 1, maximum: HITL_QUEUE_MAX_PAGE_SIZE, default: 50 })
  @IsOptional()
  @QueryInteger()
  @IsInt()
  @Min(1)
  @Max(HITL_QUEUE_MAX_PAGE_SIZE)
  declare pageSize?: number;
}

class HitlQueueItemDto {
  @ApiProperty() id: string;
  @ApiProperty() sessionId: string;
  @ApiProperty() agentId: string;
  @ApiProperty() tenantId: string;
  @ApiProperty() requestType: string;
  @ApiProperty() promptMessage: string;
  @ApiProperty({ nullable: true, type: String }) toolName: string | null;
  @ApiProperty({ nullable: true, type: String }) toolCallId: string | null;
  @ApiProperty({
    nullable: true,
    type: 'object',
    additionalProperties: true,
    description:
      'Redacted arguments; over 4,000 characters of JSON or 32 levels: {$truncated, preview}; null for a CHECKPOINT_PAUSE',
  })
  toolParams: unknown;
  @ApiProperty() triggerReason: string;
  @ApiProperty() iteration: number;
  @ApiProperty() status: string;
  @ApiProperty({ nullable: true, type: String }) decision: string | null;
  @ApiProperty({ nullable: true, type: String }) decidedBy: string | null;
  @ApiProperty({ nullable: true, type: String }) decidedAt: string | null;
  @ApiProperty() createdAt: string;
}

class HitlQueuePageDto extends PageMetaDto {
  @ApiProperty({ type: [HitlQueueItemDto] }) items: HitlQueueItemDto[];
}

@ApiTags('admin: safety')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v1/admin/hitl')
export class HitlAdminController {
  constructor(private readonly requests: HitlRequestsRepository) {}

  @Get()
  @ApiOperation({ summary: 'The HITL review queue' })
  @ApiOkResponse({ type: HitlQueuePageDto, description: 'Requests for a human decision (the review queue)' })
  @ApiErrors(400)
  async list(@Auth() auth: AuthContext, @Query() query: HitlQueueQueryDto): Promise<HitlQueuePageDto> {
    const { skip, take } = pageWindow(query);
    const [rows, total] = await this.requests.list(auth.tenantId, query.status, skip, take);
    return pageOf(rows.map(toItem), total, query);
  }
}

/** Rows stored before the previews were capped are capped here too. */
function toItem(r: HitlRequestEntity): HitlQueueItemDto {
  let params: unknown = r.toolParams;
  try {
    params = JSON.parse(r.toolParams);
  } catch {
    /* stored text */
  }
  return {
    id: r.id,
    sessionId: r.sessionId,
    agentId: r.agentId,
    tenantId: r.tenantId,
    requestType: r.requestType,
    promptMessage: previewText(r.promptMessage),
    toolName: r.toolName,
    toolCallId: r.toolCallId,
    toolParams: previewParams(params),
    triggerReason: previewText(r.triggerReason),
    iteration: r.iteration,
    status: r.status,
    decision: r.decision,
    decidedBy: r.decidedBy,
    decidedAt: toIso(r.decidedAt),
    createdAt: toIso(r.createdAt)!,
  };
}
