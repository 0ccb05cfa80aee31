import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { PageQueryDto } from '@app/common/dto/page.dto';
import { AgentConfigService } from './agent-config.service';
import {
  AddBindingDto,
  AgentDto,
  AgentPageDto,
  CreateAgentDto,
  ReplaceBindingsDto,
  UpdateAgentDto,
} from './agent-config.dto';

@ApiTags('admin: agents')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v1/admin/agents')
export class AgentsController {
  constructor(private readonly agents: AgentConfigService) {}

  @Post()
  @ApiOperation({ summary: 'Create an agent' })
  @ApiCreatedResponse({ type: AgentDto })
  @ApiErrors(400, 404, 409)
  create(@Auth() auth: AuthContext, @Body() dto: CreateAgentDto): Promise<AgentDto> {
    return this.agents.create(auth, dto);
  }

  @Get()
  @ApiOperation({ summary: 'List the agents of your tenant' })
  @ApiOkResponse({ type: AgentPageDto })
  @ApiErrors(400)
  list(@Auth() auth: AuthContext, @Query() query: PageQueryDto): Promise<AgentPageDto> {
    return this.agents.list(auth, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get an agent with its bound tool ids' })
  @ApiOkResponse({ type: AgentDto })
  @ApiErrors(404)
  get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<AgentDto> {
    return this.agents.get(auth, id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change an agent' })
  @ApiOkResponse({ type: AgentDto })
  @ApiErrors(400, 404, 409)
  update(@Auth() auth: AuthContext, @Param('id') id: string, @Body() dto: UpdateAgentDto): Promise<AgentDto> {
    return this.agents.update(auth, id, dto);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete an agent' })
  @HttpCode(200)
  @ApiOkResponse({ type: AgentDto, description: 'The deleted agent' })
  @ApiErrors(404)
  remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<AgentDto> {
    return this.agents.remove(auth, id);
  }

  @Put(':id/tools')
  @ApiOperation({ summary: 'Replace the tools an agent is bound to' })
  @ApiOkResponse({ type: AgentDto })
  @ApiErrors(400, 404)
  replaceTools(@Auth() auth: AuthContext, @Param('id') id: string, @Body() dto: ReplaceBindingsDto): Promise<AgentDto> {
    return this.agents.replaceBindings(auth, id, dto.toolIds);
  }

  @Post(':id/tools')
  @ApiOperation({ summary: 'Bind one more tool to an agent' })
  @HttpCode(200)
  @ApiOkResponse({ type: AgentDto })
  @ApiErrors(400, 404, 409)
  addTool(@Auth() auth: AuthContext, @Param('id') id: string, @Body() dto: AddBindingDto): Promise<AgentDto> {
    return this.agents.addBinding(auth, id, dto.toolId);
  }

  @Delete(':id/tools/:toolId')
  @ApiOperation({ summary: 'Unbind a tool from an agent' })
  @HttpCode(200)
  @ApiOkResponse({ type: AgentDto })
  @ApiErrors(404)
  removeTool(@Auth() auth: AuthContext, @Param('id') id: string, @Param('toolId') toolId: string): Promise<AgentDto> {
    return this.agents.removeBinding(auth, id, toolId);
  }
}
