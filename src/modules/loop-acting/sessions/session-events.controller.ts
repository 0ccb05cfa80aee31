import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { SessionEventsStore } from '@app/modules/session-events/session-events.store';
import { SessionsService } from './sessions.service';
import { SessionEventPageDto, SessionEventsQueryDto } from './session-events.dto';

@ApiTags('runtime: sessions')
@ApiBearerAuth()
@Roles('runtime')
@Controller('api/v1/sessions/:id/events')
export class SessionEventsController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly events: SessionEventsStore,
  ) {}

  @Get()
  @ApiOperation({ summary: "Read a session's events, a page at a time" })
  @ApiOkResponse({ type: SessionEventPageDto, description: "The session's events after `after`, oldest first" })
  @ApiErrors(400, 404)
  async list(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Query() query: SessionEventsQueryDto,
  ): Promise<SessionEventPageDto> {
    await this.sessions.load(auth, id);
    return this.events.page(id, query.after ?? 0, query.limit ?? 100);
  }
}
