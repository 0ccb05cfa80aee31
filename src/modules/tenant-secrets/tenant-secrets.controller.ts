import { Body, Controller, Delete, Get, HttpCode, Param, Put, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { ErrorResponseDto } from '@app/common/dto/error-response.dto';
import { PageQueryDto } from '@app/common/dto/page.dto';
import { TenantIdParamPipe } from '@app/common/http/tenant-id-param.pipe';
import { TenantSecretsService } from './tenant-secrets.service';
import { PutTenantSecretDto, TenantSecretDto, TenantSecretPageDto } from './tenant-secrets.dto';

@ApiTags('admin: tenants')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v1/admin/tenants/:tenantId/secrets')
export class TenantSecretsController {
  constructor(private readonly secrets: TenantSecretsService) {}

  @Put(':name')
  @ApiOperation({ summary: 'Set a tenant secret (stored encrypted)' })
  @ApiCreatedResponse({ type: TenantSecretDto, description: 'Created, stored encrypted; the value is never returned' })
  @ApiOkResponse({ type: TenantSecretDto, description: 'Replaced, stored encrypted; the value is never returned' })
  @ApiErrors(400, 404)
  @ApiResponse({
    status: 409,
    description:
      'SECRETS_NOT_CONFIGURED: the gateway has no SECRETS_KEY; CONCURRENT_MODIFICATION: other requests kept creating or deleting this secret while the PUT tried to set it (nothing stored; send it again)',
    type: ErrorResponseDto,
  })
  async put(
    @Auth() auth: AuthContext,
    @Param('tenantId', TenantIdParamPipe) tenantId: string,
    @Param('name') name: string,
    @Body() dto: PutTenantSecretDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<TenantSecretDto> {
    const { secret, created } = await this.secrets.put(auth, tenantId, name, dto);
    reply.status(created ? 201 : 200);
    return secret;
  }

  @Get()
  @ApiOperation({ summary: "List a tenant's secret names" })
  @ApiOkResponse({ type: TenantSecretPageDto, description: 'Names and dates only' })
  @ApiErrors(400, 404)
  list(
    @Auth() auth: AuthContext,
    @Param('tenantId', TenantIdParamPipe) tenantId: string,
    @Query() query: PageQueryDto,
  ): Promise<TenantSecretPageDto> {
    return this.secrets.list(auth, tenantId, query);
  }

  @Delete(':name')
  @ApiOperation({ summary: 'Delete a tenant secret' })
  @HttpCode(200)
  @ApiOkResponse({ type: TenantSecretDto, description: 'Deleted; tools that reference it fail until it is set again' })
  @ApiErrors(400, 404)
  delete(
    @Auth() auth: AuthContext,
    @Param('tenantId', TenantIdParamPipe) tenantId: string,
    @Param('name') name: string,
  ): Promise<TenantSecretDto> {
    return this.secrets.delete(auth, tenantId, name);
  }
}
