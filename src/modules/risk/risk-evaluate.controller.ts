import { Body, Controller, HttpCode, Inject, Optional, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { RiskDetector } from './risk-detector';
import { RiskEvaluateRequestDto, RiskEvaluateResponseDto } from './risk-evaluate.dto';
import { RISK_TOOL_SCHEMA_LOOKUP, RiskToolSchemaLookup } from './risk-tool-schema.lookup';

@ApiTags('admin: safety')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v1/admin/risk')
export class RiskEvaluateController {
  constructor(
    private readonly detector: RiskDetector,
    @Optional() @Inject(RISK_TOOL_SCHEMA_LOOKUP) private readonly lookupSchema?: RiskToolSchemaLookup,
  ) {}

  /** Dry-runs the detector: what would a text or a tool call trigger? */
  @Post('evaluate')
  @ApiOperation({ summary: 'Evaluate a text (or tool arguments) with the risk detector' })
  @HttpCode(200)
  @ApiOkResponse({ type: RiskEvaluateResponseDto })
  @ApiErrors(400)
  async evaluate(@Auth() auth: AuthContext, @Body() dto: RiskEvaluateRequestDto): Promise<RiskEvaluateResponseDto> {
    if (dto.text !== undefined) return this.detector.evaluateText(dto.text, dto.hint);
    const schema = dto.toolName && this.lookupSchema ? await this.lookupSchema(dto.toolName, auth.tenantId) : undefined;
    return this.detector.evaluateCallArguments(dto.arguments, schema);
  }
}
