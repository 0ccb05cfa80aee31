import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { SchemaBody } from '@app/common/http/schema-body.decorator';
import { ClientSignal } from '@app/common/http/client-signal.decorator';
import { EXECUTE_DIRECT_BODY_SCHEMA, ExecuteDirectBody } from './execute-direct-body.schema';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { ExecuteDirectService } from './execute-direct.service';
import { ExecuteDirectResponseDto } from './execute-direct.dto';
import { RequestLog } from '@app/common/logging/request-log.decorator';
import type { RequestLogFields } from '@app/common/logging/log-context';

@ApiTags('runtime: tools')
@ApiBearerAuth()
@Roles('runtime')
@Controller('api/v1/tools')
export class ExecuteDirectController {
  constructor(private readonly direct: ExecuteDirectService) {}

  @Post(':name/execute')
  @ApiOperation({ summary: "Call one tool without a session (checked against the agent's bindings)" })
  @HttpCode(200)
  @ApiOkResponse({ type: ExecuteDirectResponseDto, description: 'A tool failure is a 200 result with isError: true' })
  @ApiErrors(400, 404, 409)
  execute(
    @Auth() auth: AuthContext,
    @Param('name') name: string,
    @SchemaBody('ExecuteDirectBody', EXECUTE_DIRECT_BODY_SCHEMA) dto: ExecuteDirectBody,
    @ClientSignal() signal: AbortSignal,
    @RequestLog() log: RequestLogFields,
  ): Promise<ExecuteDirectResponseDto> {
    return this.direct.execute(auth, name, dto, signal, log);
  }
}
