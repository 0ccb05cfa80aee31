import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { ActResponseDto } from '../sessions/sessions.dto';
import { HitlDecisionDto } from './hitl-decision.dto';
import { HitlDecisionService } from './hitl-decision.service';
import { RequestLog } from '@app/common/logging/request-log.decorator';
import type { RequestLogFields } from '@app/common/logging/log-context';

@ApiTags('admin: safety')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v1/admin/hitl')
export class HitlDecisionController {
  constructor(private readonly decisions: HitlDecisionService) {}

  @Post(':id/decision')
  @ApiOperation({ summary: 'Decide a HITL request as a human reviewer' })
  @HttpCode(200)
  @ApiOkResponse({
    type: ActResponseDto,
    description: 'The same answer as resume: the decided call and the calls that were left NOT_RUN',
  })
  @ApiErrors(400, 404, 409)
  decide(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Body() dto: HitlDecisionDto,
    @RequestLog() log: RequestLogFields,
  ): Promise<ActResponseDto> {
    return this.decisions.decide(auth, id, dto, log);
  }
}
