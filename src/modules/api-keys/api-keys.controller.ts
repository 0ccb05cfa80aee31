import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { PageQueryDto } from '@app/common/dto/page.dto';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyDto, ApiKeyPageDto, CreateApiKeyDto, CreatedApiKeyDto } from './api-keys.dto';

@ApiTags('admin: api keys')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v1/admin/api-keys')
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @Post()
  @ApiOperation({ summary: 'Create an API key (shown once)' })
  @ApiCreatedResponse({ type: CreatedApiKeyDto, description: 'The key is shown once' })
  @ApiErrors(400)
  create(@Auth() auth: AuthContext, @Body() dto: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    return this.apiKeys.create(auth, dto);
  }

  @Get()
  @ApiOperation({ summary: 'List API keys (never the keys themselves)' })
  @ApiOkResponse({ type: ApiKeyPageDto })
  @ApiErrors(400)
  list(@Auth() auth: AuthContext, @Query() query: PageQueryDto): Promise<ApiKeyPageDto> {
    return this.apiKeys.list(auth, query);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Revoke an API key' })
  @HttpCode(200)
  @ApiOkResponse({ type: ApiKeyDto })
  @ApiErrors(404)
  remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<ApiKeyDto> {
    return this.apiKeys.remove(auth, id);
  }
}
