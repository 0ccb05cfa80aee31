import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { TenantIdParamPipe } from '@app/common/http/tenant-id-param.pipe';
import { AgentConfigService } from './agent-config.service';
import { TenantCapabilitiesDto, TenantCapabilitiesResponseDto } from './agent-config.dto';

@ApiTags('admin: tenants')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v1/admin/tenants/:tenantId/capabilities')
export class TenantCapabilitiesController {
  constructor(private readonly agents: AgentConfigService) {}

  @Put()
  @ApiOperation({ summary: "Set a tenant's capabilities (platform admin key only)" })
  @ApiOkResponse({ type: TenantCapabilitiesResponseDto })
  @ApiErrors(400)
  set(
    @Auth() auth: AuthContext,
    @Param('tenantId', TenantIdParamPipe) tenantId: string,
    @Body() dto: TenantCapabilitiesDto,
  ): Promise<TenantCapabilitiesResponseDto> {
    return this.agents.setCapabilities(auth, tenantId, dto);
  }

  @Get()
  @ApiOperation({ summary: "Get a tenant's capabilities" })
  @ApiOkResponse({ type: TenantCapabilitiesResponseDto })
  @ApiErrors(400, 404)
  get(
    @Auth() auth: AuthContext,
    @Param('tenantId', TenantIdParamPipe) tenantId: string,
  ): Promise<TenantCapabilitiesResponseDto> {
    return this.agents.getCapabilities(auth, tenantId);
  }
}
