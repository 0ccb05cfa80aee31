import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProperty, ApiTags, ApiOperation } from '@nestjs/swagger';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { PageMetaDto, PageQueryDto, pageOf, pageWindow } from '@app/common/dto/page.dto';
import { toIso } from '@app/database/epoch-ms.transformer';
import { SessionsService } from '../sessions/sessions.service';
import { ToolCallJournalRepository } from './tool-call-journal.repository';

class JournalRowDto {
  @ApiProperty() toolCallId: string;
  @ApiProperty() toolName: string;
  @ApiProperty({ enum: ['STARTED', 'COMPLETED', 'FAILED'] }) state: string;
  @ApiProperty({ nullable: true, type: String }) resultStatus: string | null;
  @ApiProperty() attempts: number;
  @ApiProperty() iteration: number;
  @ApiProperty() startedAt: string;
  @ApiProperty({ nullable: true, type: String }) finishedAt: string | null;
  @ApiProperty() owner: string;
  @ApiProperty() leaseExpiresAt: string;
  @ApiProperty() totalChars: number;
  @ApiProperty({ nullable: true, type: String }) errorClass: string | null;
}

class JournalPageDto extends PageMetaDto {
  @ApiProperty({ type: [JournalRowDto] }) items: JournalRowDto[];
}

@ApiTags('admin: safety')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v1/admin/sessions')
export class JournalAdminController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly journal: ToolCallJournalRepository,
  ) {}

  @Get(':id/journal')
  @ApiOperation({ summary: "Read a session's call journal" })
  @ApiOkResponse({ type: JournalPageDto })
  @ApiErrors(400, 404)
  async journalOf(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Query() query: PageQueryDto,
  ): Promise<JournalPageDto> {
    const session = await this.sessions.load(auth, id);
    const { skip, take } = pageWindow(query);
    const [rows, total] = await this.journal.pageForSession(session.tenantId, session.id, skip, take);
    const items = rows.map((r) => ({
      toolCallId: r.toolCallId,
      toolName: r.toolName,
      state: r.state,
      resultStatus: r.resultStatus,
      attempts: r.attempts,
      iteration: r.iteration,
      startedAt: toIso(r.startedAt)!,
      finishedAt: toIso(r.finishedAt),
      owner: r.owner,
      leaseExpiresAt: toIso(r.leaseExpiresAt)!,
      totalChars: r.totalChars,
      errorClass: r.errorClass,
    }));
    return pageOf(items, total, query);
  }
}
