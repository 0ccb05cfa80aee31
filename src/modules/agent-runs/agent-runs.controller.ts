import { Body, Controller, Get, Param, Post, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { ClientSignal } from '@app/common/http/client-signal.decorator';
import { AgentRunsService } from './agent-runs.service';
import { MessagePageDto, MessagesQueryDto, PostMessageDto, RunDto } from './agent-runs.dto';

@ApiTags('runtime: agent runs')
@ApiBearerAuth()
@Roles('runtime')
@Controller('api/v1/sessions/:id')
export class AgentRunsController {
  constructor(private readonly runs: AgentRunsService) {}

  @Post('messages')
  @ApiOperation({ summary: "Send a user message: starts a run of the gateway's own agent loop" })
  @ApiAcceptedResponse({ type: RunDto, description: 'The run started (or the run of this clientMessageId)' })
  @ApiOkResponse({ type: RunDto, description: 'With wait: true, when the run stopped' })
  @ApiErrors(400, 404, 409)
  async post(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Body() dto: PostMessageDto,
    @Res({ passthrough: true }) res: FastifyReply,
    @ClientSignal() signal: AbortSignal,
  ): Promise<RunDto> {
    const { stopped, run } = await this.runs.post(auth, id, dto, signal);
    void res.code(dto.wait && stopped ? 200 : 202);
    return run;
  }

  @Get('messages')
  @ApiOperation({ summary: "Read the session's conversation" })
  @ApiOkResponse({ type: MessagePageDto, description: "The session's conversation, oldest first" })
  @ApiErrors(400, 404)
  messages(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Query() query: MessagesQueryDto,
  ): Promise<MessagePageDto> {
    return this.runs.conversation(auth, id, query);
  }

  @Get('runs/:runId')
  @ApiOperation({ summary: 'Get a run of the agent loop' })
  @ApiOkResponse({ type: RunDto })
  @ApiErrors(404)
  run(@Auth() auth: AuthContext, @Param('id') id: string, @Param('runId') runId: string): Promise<RunDto> {
    return this.runs.get(auth, id, runId);
  }
}
