import { Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ApiBearerAuth, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { SchemaBody } from '@app/common/http/schema-body.decorator';
import { ToolSpecsResponseDto } from './tool-specs.dto';
import { TOOL_SPECS_BODY_SCHEMA, type ToolSpecsBody } from './tool-specs-body.schema';
import { ToolSpecsReply } from './tool-specs.reply';

@ApiTags('runtime: tools')
@ApiBearerAuth()
@Roles('runtime')
@Controller('api/v1/agents')
export class ToolSpecsController {
  constructor(private readonly reply: ToolSpecsReply) {}

  @Post(':agentId/tool-specs')
  @ApiOperation({ summary: 'The tools a model may see, as JSON Schemas in its format, with why others are hidden' })
  @HttpCode(200)
  @ApiOkResponse({ type: ToolSpecsResponseDto, description: 'The tools the model may see, in its own format' })
  @ApiErrors(400, 404)
  async toolSpecs(
    @Auth() auth: AuthContext,
    @Param('agentId') agentId: string,
    @SchemaBody('ToolSpecsBody', TOOL_SPECS_BODY_SCHEMA) dto: ToolSpecsBody,
    @Res() res: FastifyReply,
  ): Promise<void> {
    await this.reply.send(auth.tenantId!, agentId, dto, res);
  }
}
