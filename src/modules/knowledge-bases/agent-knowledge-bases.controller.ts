import { Body, Controller, Param, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { AgentDto } from '@app/modules/agent-config/agent-config.dto';
import { KnowledgeBasesService } from './knowledge-bases.service';
import { ReplaceAgentKnowledgeBasesDto } from './knowledge-bases.dto';

@ApiTags('admin: agents')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v1/admin/agents')
export class AgentKnowledgeBasesController {
  constructor(private readonly bases: KnowledgeBasesService) {}

  @Put(':id/knowledge-bases')
  @ApiOperation({ summary: "Replace the knowledge bases an agent's RAG_SEARCH searches" })
  @ApiOkResponse({ type: AgentDto, description: 'The agent, with its knowledgeBaseIds' })
  @ApiErrors(400, 404)
  replace(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Body() dto: ReplaceAgentKnowledgeBasesDto,
  ): Promise<AgentDto> {
    return this.bases.bindToAgent(auth, id, dto.knowledgeBaseIds);
  }
}
