import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { AjvBodyPipe } from '@app/common/http/ajv-body.pipe';
import { ClientSignal } from '@app/common/http/client-signal.decorator';
import { EXECUTE_DIRECT_BODY_SCHEMA, ExecuteDirectBody } from './execute-direct-body.schema';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { ExecuteDirectService } from './execute-direct.service';
import { ExecuteDirectDto, ExecuteDirectResponseDto } from './execute-direct.dto';

@ApiTags('runtime: tools')
@ApiBearerAuth()
@Roles('runtime')
@Controller('api/v1/tools')
export class ExecuteDirectController {
  constructor(private readonly direct: ExecuteDirectService) {}

  @Post(':name/execute')
  @HttpCode(200)
  @ApiOkResponse({ type: ExecuteDirectResponseDto, description: 'A tool failure is a 200 result with isError: true' })
  @ApiErrors(400, 404, 409)
  @ApiBody({ type: ExecuteDirectDto })
  execute(
    @Auth() auth: AuthContext,
    @Param('name') name: string,
    @Body(new AjvBodyPipe<ExecuteDirectBody>(EXECUTE_DIRECT_BODY_SCHEMA)) dto: ExecuteDirectBody,
    @ClientSignal() signal: AbortSignal,
  ): Promise<ExecuteDirectResponseDto> {
    return this.direct.execute(auth, name, dto, signal);
  }
}
