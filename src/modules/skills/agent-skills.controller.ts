import { Body, Controller, Param, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { AgentDto } from '@app/modules/agent-config/agent-config.dto';
import { AgentConfigService } from '@app/modules/agent-config/agent-config.service';
import { AgentSkillsDto } from './skills.dto';

@ApiTags('admin: agents')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v1/admin/agents')
export class AgentSkillsController {
  constructor(private readonly agents: AgentConfigService) {}

  @Put(':id/skills')
  @ApiOperation({ summary: 'Replace the skills an agent may use' })
  @ApiOkResponse({ type: AgentDto, description: 'The agent with its new skillIds' })
  @ApiErrors(400, 404)
  replace(@Auth() auth: AuthContext, @Param('id') id: string, @Body() dto: AgentSkillsDto): Promise<AgentDto> {
    return this.agents.setSkillIds(auth, id, dto.skillIds);
  }
}
