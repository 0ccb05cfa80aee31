import { Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ApiBearerAuth, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { AgentConfigService } from './agent-config.service';
import { SchemaBody } from '@app/common/http/schema-body.decorator';
import { ToolSpecsResponseDto } from './tool-specs.dto';
import { TOOL_SPECS_BODY_SCHEMA, type ToolSpecsBody } from './tool-specs-body.schema';
import { ToolSpecsReply } from './tool-specs.reply';

/** The runtime's tool-specs answer, previewed with an admin key (the agent's tenant is the tenant of the preview). */
@ApiTags('admin: agents')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v1/admin/agents')
export class AdminToolSpecsController {
  constructor(
    private readonly agents: AgentConfigService,
    private readonly reply: ToolSpecsReply,
  ) {}

  @Post(':agentId/tool-specs')
  @ApiOperation({ summary: 'Preview the tool specs a runtime would get for an agent and this body' })
  @HttpCode(200)
  @ApiOkResponse({ type: ToolSpecsResponseDto, description: 'What the runtime would get for this body (preview)' })
  @ApiErrors(400, 404)
  async preview(
    @Auth() auth: AuthContext,
    @Param('agentId') agentId: string,
    @SchemaBody('ToolSpecsBody', TOOL_SPECS_BODY_SCHEMA) dto: ToolSpecsBody,
    @Res() res: FastifyReply,
  ): Promise<void> {
    const agent = await this.agents.get(auth, agentId);
    await this.reply.send(agent.tenantId, agentId, dto, res);
  }
}
