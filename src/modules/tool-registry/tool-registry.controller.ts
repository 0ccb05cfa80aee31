import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { ToolRegistryService } from './tool-registry.service';
import {
  CreateToolDto,
  ListToolsQueryDto,
  ToolDto,
  ToolPageDto,
  ToolWithChecklistDto,
  UpdateToolDto,
} from './tool-registry.dto';
import { ToolChecklistDto } from './checklist/tool-checklist.dto';

@ApiTags('admin: tools')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v1/admin/tools')
export class ToolRegistryController {
  constructor(private readonly registry: ToolRegistryService) {}

  @Post()
  @ApiOperation({ summary: 'Register a tool' })
  @ApiCreatedResponse({ type: ToolWithChecklistDto })
  @ApiErrors(400, 409)
  create(@Auth() auth: AuthContext, @Body() dto: CreateToolDto): Promise<ToolWithChecklistDto> {
    return this.registry.create(auth, dto);
  }

  @Post('checklist')
  @ApiOperation({ summary: 'Run the new-tool checklist on a definition (nothing stored)' })
  @HttpCode(200)
  @ApiOkResponse({ type: ToolChecklistDto, description: 'The new-tool checklist of a definition; nothing is stored' })
  @ApiErrors(400)
  checkDefinition(@Auth() auth: AuthContext, @Body() dto: CreateToolDto): ToolChecklistDto {
    return this.registry.checklistOfDefinition(auth, dto);
  }

  @Get(':id/checklist')
  @ApiOperation({ summary: 'Run the new-tool checklist on a stored tool' })
  @ApiOkResponse({ type: ToolChecklistDto, description: 'The new-tool checklist of a stored tool (any source)' })
  @ApiErrors(404)
  checklist(@Auth() auth: AuthContext, @Param('id') id: string): Promise<ToolChecklistDto> {
    return this.registry.checklist(auth, id);
  }

  @Get()
  @ApiOperation({ summary: 'List tools' })
  @ApiOkResponse({ type: ToolPageDto })
  @ApiErrors(400)
  list(@Auth() auth: AuthContext, @Query() query: ListToolsQueryDto): Promise<ToolPageDto> {
    return this.registry.list(auth, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a tool' })
  @ApiOkResponse({ type: ToolDto })
  @ApiErrors(404)
  get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<ToolDto> {
    return this.registry.get(auth, id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change a tool (bumps its version)' })
  @ApiOkResponse({ type: ToolWithChecklistDto, description: 'The changed tool; version is bumped' })
  @ApiErrors(400, 404, 409)
  update(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Body() dto: UpdateToolDto,
  ): Promise<ToolWithChecklistDto> {
    return this.registry.update(auth, id, dto);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Retire a tool' })
  @HttpCode(200)
  @ApiOkResponse({ type: ToolDto, description: 'Retired (status RETIRED); bindings stay' })
  @ApiErrors(404)
  retire(@Auth() auth: AuthContext, @Param('id') id: string): Promise<ToolDto> {
    return this.registry.retire(auth, id);
  }
}
