import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { ErrorResponseDto } from '@app/common/dto/error-response.dto';
import { SchemaBody } from '@app/common/http/schema-body.decorator';
import { ClientSignal } from '@app/common/http/client-signal.decorator';
import { ACT_BODY_SCHEMA, ActBody } from './act-body.schema';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { SessionsService } from './sessions.service';
import { ActService } from '../acting/act.service';
import { ResumeService } from '../acting/resume.service';
import { ToolResultReader } from '../results/tool-result.reader';
import { RequestLog } from '@app/common/logging/request-log.decorator';
import type { RequestLogFields } from '@app/common/logging/log-context';
import {
  ActResponseDto,
  CreateSessionDto,
  ResumeDto,
  SessionDto,
  ToolResultPageDto,
  ToolResultQueryDto,
} from './sessions.dto';

@ApiTags('runtime: sessions')
@ApiBearerAuth()
@Roles('runtime')
@Controller('api/v1/sessions')
export class SessionsController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly acting: ActService,
    private readonly resuming: ResumeService,
    private readonly results: ToolResultReader,
  ) {}

  @Post()
  @ApiOperation({ summary: 'Open a session for an agent and a user' })
  @ApiCreatedResponse({ type: SessionDto })
  @ApiErrors(400, 404)
  create(@Auth() auth: AuthContext, @Body() dto: CreateSessionDto): Promise<SessionDto> {
    return this.sessions.create(auth, dto);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a session' })
  @ApiOkResponse({ type: SessionDto })
  @ApiErrors(404)
  get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<SessionDto> {
    return this.sessions.get(auth, id);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Close a session' })
  @ApiOkResponse({
    type: SessionDto,
    description:
      'Closed (status CLOSED): a later act answers 409 SESSION_CLOSED; the workspace is removed (events stay until retention)',
  })
  @ApiErrors(404)
  close(@Auth() auth: AuthContext, @Param('id') id: string): Promise<SessionDto> {
    return this.sessions.close(auth, id);
  }

  @Post(':id/act')
  @ApiOperation({ summary: "Run the model's tool calls of one iteration (journaled: a toolCallId runs once)" })
  @HttpCode(200)
  @ApiOkResponse({
    type: ActResponseDto,
    description: 'Tool failures are results (status FAILED, isError), not HTTP errors',
  })
  @ApiErrors(400, 404, 409)
  act(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @SchemaBody('ActBody', ACT_BODY_SCHEMA) dto: ActBody,
    @ClientSignal() signal: AbortSignal,
    @RequestLog() log: RequestLogFields,
  ): Promise<ActResponseDto> {
    return this.acting.act(auth, id, dto, { signal, log });
  }

  @Post(':id/resume')
  @ApiOperation({ summary: 'Continue an interrupted session with a decision' })
  @HttpCode(200)
  @ApiOkResponse({ type: ActResponseDto })
  @ApiResponse({
    status: 403,
    type: ErrorResponseDto,
    description:
      "FORBIDDEN: not a runtime key · HITL_ADMIN_REVIEW_REQUIRED: the agent's hitlReviewer is ADMIN (only a CHECKPOINT_PAUSE may be continued by the runtime)",
  })
  @ApiErrors(400, 404, 409)
  resume(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Body() dto: ResumeDto,
    @RequestLog() log: RequestLogFields,
  ): Promise<ActResponseDto> {
    return this.resuming.resume(auth, id, dto, log);
  }

  @Get(':id/tool-results/:toolCallId')
  @ApiOperation({ summary: 'Read a page of a stored tool result' })
  @ApiOkResponse({
    type: ToolResultPageDto,
    description: 'A page of a stored result (what READ_TOOL_RESULT gives the model)',
  })
  @ApiErrors(400, 404)
  toolResult(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Param('toolCallId') toolCallId: string,
    @Query() query: ToolResultQueryDto,
  ): Promise<ToolResultPageDto> {
    return this.results.page(auth, id, toolCallId, query.offset ?? 0, query.limit ?? 4000);
  }
}
