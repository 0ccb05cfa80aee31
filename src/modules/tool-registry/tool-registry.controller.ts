import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { ToolRegistryService } from './tool-registry.service';
import { CreateToolDto, ListToolsQueryDto, ToolDto, ToolPageDto, UpdateToolDto } from './tool-registry.dto';

@ApiTags('admin: tools')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v1/admin/tools')
export class ToolRegistryController {
  constructor(private readonly registry: ToolRegistryService) {}

  @Post()
  @ApiCreatedResponse({ type: ToolDto })
  @ApiErrors(400, 409)
  create(@Auth() auth: AuthContext, @Body() dto: CreateToolDto): Promise<ToolDto> {
    return this.registry.create(auth, dto);
  }

  @Get()
  @ApiOkResponse({ type: ToolPageDto })
  @ApiErrors(400)
  list(@Auth() auth: AuthContext, @Query() query: ListToolsQueryDto): Promise<ToolPageDto> {
    return this.registry.list(auth, query);
  }

  @Get(':id')
  @ApiOkResponse({ type: ToolDto })
  @ApiErrors(404)
  get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<ToolDto> {
    return this.registry.get(auth, id);
  }

  @Patch(':id')
  @ApiOkResponse({ type: ToolDto, description: 'The changed tool; version is bumped' })
  @ApiErrors(400, 404, 409)
  update(@Auth() auth: AuthContext, @Param('id') id: string, @Body() dto: UpdateToolDto): Promise<ToolDto> {
    return this.registry.update(auth, id, dto);
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOkResponse({ type: ToolDto, description: 'Retired (status RETIRED); bindings stay' })
  @ApiErrors(404, 409)
  retire(@Auth() auth: AuthContext, @Param('id') id: string): Promise<ToolDto> {
    return this.registry.retire(auth, id);
  }
}
