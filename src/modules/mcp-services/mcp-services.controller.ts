import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { ErrorResponseDto } from '@app/common/dto/error-response.dto';
import { McpServicesService } from './mcp-services.service';
import {
  CreateMcpServiceDto,
  ListMcpServicesQueryDto,
  McpServiceDto,
  McpServicePageDto,
  McpSyncReportDto,
  UpdateMcpServiceDto,
} from './mcp-services.dto';
import { PageQueryDto } from '@app/common/dto/page.dto';
import { ToolPageDto } from '@app/modules/tool-registry/tool-registry.dto';

@ApiTags('admin: MCP services')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v1/admin/mcp-services')
export class McpServicesController {
  constructor(private readonly services: McpServicesService) {}

  @Post()
  @ApiOperation({ summary: 'Register an MCP service (STATIC URL or NACOS) and sync its tools' })
  @ApiCreatedResponse({
    type: McpServiceDto,
    description: 'Registered and synced once (lastSync); its tools are bound to no agent',
  })
  @ApiErrors(400, 409)
  create(@Auth() auth: AuthContext, @Body() dto: CreateMcpServiceDto): Promise<McpServiceDto> {
    return this.services.create(auth, dto);
  }

  @Get()
  @ApiOperation({ summary: 'List MCP services' })
  @ApiOkResponse({ type: McpServicePageDto })
  @ApiErrors(400)
  list(@Auth() auth: AuthContext, @Query() query: ListMcpServicesQueryDto): Promise<McpServicePageDto> {
    return this.services.list(auth, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get an MCP service with its health' })
  @ApiOkResponse({ type: McpServiceDto, description: 'With health and lastSyncAt' })
  @ApiErrors(404)
  get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<McpServiceDto> {
    return this.services.get(auth, id);
  }

  @Patch(':id')
  @ApiOperation({ summary: "Change an MCP service's URL, transport or headers" })
  @ApiOkResponse({
    type: McpServiceDto,
    description: 'Changed; its tools follow at once, then it is synced again (lastSync)',
  })
  @ApiErrors(400, 404)
  update(@Auth() auth: AuthContext, @Param('id') id: string, @Body() dto: UpdateMcpServiceDto): Promise<McpServiceDto> {
    return this.services.update(auth, id, dto);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete an MCP service (its tools are disabled)' })
  @HttpCode(200)
  @ApiOkResponse({ type: McpServiceDto, description: 'Deleted; its tools are DISABLED (bindings kept)' })
  @ApiErrors(404)
  remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<McpServiceDto> {
    return this.services.remove(auth, id);
  }

  @Get(':id/tools')
  @ApiOperation({ summary: 'List the tools an MCP service brought into the registry' })
  @ApiOkResponse({ type: ToolPageDto, description: 'Its tools in the registry, any status' })
  @ApiErrors(400, 404)
  tools(@Auth() auth: AuthContext, @Param('id') id: string, @Query() query: PageQueryDto): Promise<ToolPageDto> {
    return this.services.tools(auth, id, query);
  }

  @Post(':id/sync')
  @ApiOperation({ summary: "Sync an MCP service's tools now" })
  @HttpCode(200)
  @ApiOkResponse({
    type: McpSyncReportDto,
    description:
      '{added, updated, disabled, unchanged, collisions, ...}; skipped: true when another gateway instance was syncing it',
  })
  @ApiErrors(404)
  @ApiResponse({
    status: 502,
    description: 'MCP_SERVICE_UNREACHABLE: no instance answered tools/list; nothing changed',
    type: ErrorResponseDto,
  })
  sync(@Auth() auth: AuthContext, @Param('id') id: string): Promise<McpSyncReportDto> {
    return this.services.syncNow(auth, id);
  }
}
