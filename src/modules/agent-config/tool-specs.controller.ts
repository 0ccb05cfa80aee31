import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { ToolVisibilityService } from './visibility/tool-visibility.service';
import { ToolSpecsRequestDto, ToolSpecsResponseDto } from './tool-specs.dto';
import { replyWithToolSpecs } from './tool-specs.reply';

@ApiTags('runtime: tools')
@ApiBearerAuth()
@Roles('runtime')
@Controller('api/v1/agents')
export class ToolSpecsController {
  constructor(private readonly visibility: ToolVisibilityService) {}

  @Post(':agentId/tool-specs')
  @HttpCode(200)
  @ApiOkResponse({ type: ToolSpecsResponseDto, description: 'The tools the model may see, in its own format' })
  @ApiErrors(400, 404)
  async toolSpecs(
    @Auth() auth: AuthContext,
    @Param('agentId') agentId: string,
    @Body() dto: ToolSpecsRequestDto,
    @Res() res: FastifyReply,
  ): Promise<void> {
    await replyWithToolSpecs(this.visibility, auth.tenantId!, agentId, dto, res);
  }
}
