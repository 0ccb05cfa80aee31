import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { PageQueryDto } from '@app/common/dto/page.dto';
import { ModelProvidersService } from './model-providers.service';
import {
  CreateModelProviderDto,
  ModelProviderDto,
  ModelProviderPageDto,
  UpdateModelProviderDto,
} from './model-providers.dto';

@ApiTags('admin: model providers')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v1/admin/model-providers')
export class ModelProvidersController {
  constructor(private readonly providers: ModelProvidersService) {}

  @Post()
  @ApiOperation({ summary: 'Register a model provider (OpenAI-compatible)' })
  @ApiCreatedResponse({ type: ModelProviderDto, description: 'The key is stored as its reference only' })
  @ApiErrors(400, 403, 409)
  create(@Auth() auth: AuthContext, @Body() dto: CreateModelProviderDto): Promise<ModelProviderDto> {
    return this.providers.create(auth, dto);
  }

  @Get()
  @ApiOperation({ summary: 'List model providers' })
  @ApiOkResponse({ type: ModelProviderPageDto, description: "The tenant's own and the platform-wide ones" })
  @ApiErrors(400)
  list(@Auth() auth: AuthContext, @Query() query: PageQueryDto): Promise<ModelProviderPageDto> {
    return this.providers.list(auth, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a model provider' })
  @ApiOkResponse({ type: ModelProviderDto })
  @ApiErrors(404)
  get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<ModelProviderDto> {
    return this.providers.get(auth, id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change a model provider' })
  @ApiOkResponse({ type: ModelProviderDto, description: 'Bumps version' })
  @ApiErrors(400, 403, 404, 409)
  update(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Body() dto: UpdateModelProviderDto,
  ): Promise<ModelProviderDto> {
    return this.providers.update(auth, id, dto);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a model provider' })
  @HttpCode(200)
  @ApiOkResponse({ type: ModelProviderDto, description: 'Deleted; runs of agents that name it fail with the reason' })
  @ApiErrors(403, 404)
  remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<ModelProviderDto> {
    return this.providers.remove(auth, id);
  }
}
