import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { ErrorResponseDto } from '@app/common/dto/error-response.dto';
import { McpServicesService } from './mcp-services.service';
import { CreateMcpServiceDto, ListMcpServicesQueryDto, McpServiceDto, McpServicePageDto, McpSyncReportDto } from './mcp-services.dto';

@ApiTags('admin: MCP services')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v1/admin/mcp-services')
export class McpServicesController {
  constructor(private readonly services: McpServicesService) {}

  @Post()
  @ApiCreatedResponse({ type: McpServiceDto, description: 'Registered and synced once (lastSync); its tools are bound to no agent' })
  @ApiErrors(400, 409)
  create(@Auth() auth: AuthContext, @Body() dto: CreateMcpServiceDto): Promise<McpServiceDto> {
    return this.services.create(auth, dto);
  }

  @Get()
  @ApiOkResponse({ type: McpServicePageDto })
  @ApiErrors(400)
  list(@Auth() auth: AuthContext, @Query() query: ListMcpServicesQueryDto): Promise<McpServicePageDto> {
    return this.services.list(auth, query);
  }

  @Get(':id')
  @ApiOkResponse({ type: McpServiceDto, description: 'With health and lastSyncAt' })
  @ApiErrors(404)
  get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<McpServiceDto> {
    return this.services.get(auth, id);
  }

  @Post(':id/sync')
  @HttpCode(200)
  @ApiOkResponse({ type: McpSyncReportDto, description: '{added, updated, disabled, unchanged, collisions, ...}; skipped: true when another gateway instance was syncing it' })
  @ApiErrors(404)
  @ApiResponse({ status: 502, description: 'MCP_SERVICE_UNREACHABLE: no instance answered tools/list; nothing changed', type: ErrorResponseDto })
  sync(@Auth() auth: AuthContext, @Param('id') id: string): Promise<McpSyncReportDto> {
    return this.services.syncNow(auth, id);
  }
}
