import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiTags, ApiOperation } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { CharLength } from '@app/common/text/char-length';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { PageMetaDto, PageQueryDto, pageOf, pageWindow } from '@app/common/dto/page.dto';
import { ToolCallLogQuery } from './tool-call-log.query';
import { TOOL_CALL_LOG_STATUSES, type ToolCallLogStatus } from './tool-call-log.entity';

class ToolCallsQueryDto extends PageQueryDto {
  @ApiPropertyOptional() @IsOptional() @IsString() @CharLength(1, 36) sessionId?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @CharLength(1, 64) toolName?: string;
  @ApiPropertyOptional({ enum: TOOL_CALL_LOG_STATUSES })
  @IsOptional()
  @IsIn(TOOL_CALL_LOG_STATUSES)
  status?: ToolCallLogStatus;
}

class ToolCallLogPageDto extends PageMetaDto {
  @ApiProperty({
    type: 'array',
    items: { type: 'object' },
    description: 'Tool log rows; arguments and result previews are redacted',
  })
  items: object[];
}

@ApiTags('admin: safety')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v1/admin/tool-calls')
export class ToolCallsAdminController {
  constructor(private readonly log: ToolCallLogQuery) {}

  @Get()
  @ApiOperation({ summary: 'Read the tool log (redacted)' })
  @ApiOkResponse({ type: ToolCallLogPageDto })
  @ApiErrors(400)
  async list(@Auth() auth: AuthContext, @Query() query: ToolCallsQueryDto): Promise<ToolCallLogPageDto> {
    const [items, total] = await this.log.list({
      tenantId: auth.tenantId,
      sessionId: query.sessionId,
      toolName: query.toolName,
      status: query.status,
      ...pageWindow(query),
    });
    return pageOf(items, total, query);
  }
}
