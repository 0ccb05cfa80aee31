import { IsSafeLine } from '@app/common/safe-text';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsObject, IsOptional, IsString, Matches, ValidateIf } from 'class-validator';
import { CharLength } from '@app/common/text/char-length';
import { PageMetaDto, PageQueryDto } from '@app/common/dto/page.dto';
import { TENANT_ID_PATTERN } from '@app/modules/tool-registry/tool-registry.types';
import {
  MCP_SERVICE_HEALTHS,
  MCP_SERVICE_KINDS,
  MCP_SERVICE_NAME_PATTERN,
  MCP_SERVICE_TRANSPORTS,
  TOOL_PREFIX_PATTERN,
  type McpServiceHealth,
  type McpServiceKind,
  type McpServiceTransport,
  type McpSyncTrigger,
} from './mcp-service.types';
import { HEADERS_MAX_JSON_BYTES, MaxJsonBytes } from '@app/common/json-size';

const NACOS_NAME = /^[^@\s]+$/;
const HEADERS_DESCRIPTION =
  "Headers sent on every MCP request to the service (and by its tools); credentials only as ${secret:NAME}, never literal: a platform-wide service reads TOOL_SECRETS, a tenant's only that tenant's secrets.";

export class CreateMcpServiceDto {
  @ApiProperty({
    pattern: MCP_SERVICE_NAME_PATTERN.source,
    example: 'weather',
    description: "Unique in its scope; the default prefix of its tools' names",
  })
  @IsString()
  @Matches(MCP_SERVICE_NAME_PATTERN, { message: 'name must be 1-64 letters, digits, _ . or -' })
  name: string;

  @ApiProperty({
    enum: MCP_SERVICE_KINDS,
    description: 'NACOS: healthy instances of a Nacos service · STATIC: one MCP URL',
  })
  @IsIn(MCP_SERVICE_KINDS)
  kind: McpServiceKind;

  @ApiPropertyOptional({
    description: 'STATIC (required): the MCP endpoint, http(s)',
    example: 'https://mcp.example.com/mcp',
  })
  @IsOptional()
  @IsString()
  @CharLength(1, 2048)
  url?: string;

  @ApiPropertyOptional({ description: 'NACOS (required): the Nacos service name', example: 'weather-mcp' })
  @IsOptional()
  @IsString()
  @CharLength(1, 200)
  @Matches(NACOS_NAME, { message: 'serviceName must not contain @ or spaces' })
  @IsSafeLine()
  serviceName?: string;

  @ApiPropertyOptional({ description: 'NACOS: the Nacos group', default: 'DEFAULT_GROUP' })
  @IsOptional()
  @IsString()
  @CharLength(1, 128)
  @Matches(NACOS_NAME, { message: 'groupName must not contain @ or spaces' })
  @IsSafeLine()
  groupName?: string;

  @ApiPropertyOptional({ description: 'NACOS: the Nacos namespace (default NACOS_NAMESPACE)' })
  @IsOptional()
  @IsString()
  @CharLength(1, 128)
  @Matches(/^\S+$/, { message: 'namespaceId must not contain spaces' })
  @IsSafeLine()
  namespaceId?: string;

  @ApiPropertyOptional({
    enum: MCP_SERVICE_TRANSPORTS,
    description:
      'STATIC: the transport (default: streamable HTTP, falling back to SSE) · NACOS: of instances whose metadata mcp.transport names none (default MCP_DEFAULT_TRANSPORT)',
  })
  @IsOptional()
  @IsIn(MCP_SERVICE_TRANSPORTS)
  transport?: McpServiceTransport;

  @ApiPropertyOptional({
    description: 'NACOS: endpoint path of instances whose metadata mcp.path names none (default MCP_DEFAULT_PATH)',
    example: '/mcp',
  })
  @IsOptional()
  @IsString()
  @CharLength(1, 512)
  @Matches(/^\/[^\s?#]*$/, { message: 'path must start with / and hold no spaces, ? or #' })
  path?: string;

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    description: 'null: its tools are platform-wide (platform admin only); a tenant admin registers in its own tenant',
  })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @Matches(TENANT_ID_PATTERN, { message: 'tenantId must be 1-64 letters, digits, _ . or -' })
  tenantId?: string | null;

  @ApiPropertyOptional({
    description: "Prefix of its tools' names (default: the service name with . as _, then _); may be empty",
    pattern: TOOL_PREFIX_PATTERN.source,
    example: 'weather_',
  })
  @IsOptional()
  @IsString()
  @Matches(TOOL_PREFIX_PATTERN, { message: 'toolPrefix must be 0-32 letters, digits, _ or -' })
  toolPrefix?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: HEADERS_DESCRIPTION,
    example: { Authorization: 'Bearer ${secret:WEATHER_TOKEN}' },
  })
  @IsOptional()
  @IsObject()
  @MaxJsonBytes(HEADERS_MAX_JSON_BYTES)
  headers?: Record<string, string>;
}

/** PATCH: what may change after registration (its tools follow at once; a sync runs). */
export class UpdateMcpServiceDto {
  @ApiPropertyOptional({
    description: 'STATIC only: the MCP endpoint, http(s)',
    example: 'https://mcp.example.com/mcp',
  })
  @IsOptional()
  @IsString()
  @CharLength(1, 2048)
  url?: string;

  @ApiPropertyOptional({
    enum: MCP_SERVICE_TRANSPORTS,
    description: 'STATIC only: the transport used to list its tools',
  })
  @IsOptional()
  @IsIn(MCP_SERVICE_TRANSPORTS)
  transport?: McpServiceTransport;

  @ApiPropertyOptional({
    type: 'object',
    nullable: true,
    additionalProperties: { type: 'string' },
    description: `${HEADERS_DESCRIPTION} null removes them.`,
  })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsObject()
  @MaxJsonBytes(HEADERS_MAX_JSON_BYTES)
  headers?: Record<string, string> | null;
}

export class ListMcpServicesQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: "Platform admin only: one tenant's services" })
  @IsOptional()
  @Matches(TENANT_ID_PATTERN, { message: 'tenantId must be 1-64 letters, digits, _ . or -' })
  tenantId?: string;
}

export class McpToolCollisionDto {
  @ApiProperty({ description: "The tool's name on the MCP server" }) remoteName: string;
  @ApiProperty({ description: 'The registry name it would have had' }) name: string;
  @ApiProperty({ description: 'The tool that holds that name (never overwritten)' }) existingToolId: string;
  @ApiProperty({ description: 'Its source: DB, FEIGN, BUILTIN or MCP' }) existingSource: string;
  @ApiProperty({ nullable: true, type: String, description: 'Its MCP service, when it is an MCP tool' })
  existingMcpServiceId: string | null;
  @ApiProperty({ nullable: true, type: String }) existingTenantId: string | null;
}

export class McpToolRejectionDto {
  @ApiProperty() remoteName: string;
  @ApiProperty({ type: [String] }) problems: string[];
}

export class McpSyncToolNamesDto {
  @ApiProperty({ type: [String] }) added: string[];
  @ApiProperty({ type: [String] }) updated: string[];
  @ApiProperty({ type: [String] }) disabled: string[];
}

export class McpToolLossyRewriteDto {
  @ApiProperty({ description: "The tool's name on the MCP server" }) remoteName: string;
  @ApiProperty({
    type: [String],
    description: "Per model format, what was rewritten (the checklist's MODEL_* warnings)",
  })
  rewrites: string[];
}

export class McpSyncReportDto {
  @ApiProperty({ description: 'Tools new in the registry' }) added: number;
  @ApiProperty({ description: 'Tools whose definition changed (version bumped) or that came back (ACTIVE again)' })
  updated: number;
  @ApiProperty({ description: 'Tools gone from the server: DISABLED, bindings kept' }) disabled: number;
  @ApiProperty() unchanged: number;
  @ApiProperty({
    type: [McpToolCollisionDto],
    description: 'Listed tools whose name another tool holds: not registered',
  })
  collisions: McpToolCollisionDto[];
  @ApiProperty({ type: [McpToolRejectionDto], description: 'Listed tools with an unusable definition: skipped' })
  rejected: McpToolRejectionDto[];
  @ApiProperty({ description: 'Another gateway instance held the sync lease: nothing was done here' }) skipped: boolean;
  @ApiProperty({
    enum: ['create', 'admin', 'instances-changed', 'tools-list-changed', 'repair', 'startup'],
    description: 'What started the sync',
  })
  trigger: McpSyncTrigger;
  @ApiPropertyOptional() skippedReason?: string;
  @ApiProperty({ type: McpSyncToolNamesDto }) tools: McpSyncToolNamesDto;
  @ApiPropertyOptional({ description: 'The MCP endpoint that answered tools/list' }) listedFrom?: string;
  @ApiPropertyOptional({
    type: [McpToolLossyRewriteDto],
    description: 'Listed tools whose schema a model format had to rewrite with a loss',
  })
  lossyRewrites?: McpToolLossyRewriteDto[];
  @ApiPropertyOptional({ description: 'sha256 of the tools/list answer' }) listHash?: string;
  @ApiProperty({ description: 'ISO-8601' }) finishedAt: string;
  @ApiProperty() durationMs: number;
  @ApiPropertyOptional({ description: 'Why no instance answered (a stored report of a failed sync)' }) error?: string;
}

export class McpServiceDto {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: MCP_SERVICE_KINDS }) kind: McpServiceKind;
  @ApiProperty({ nullable: true, type: String }) url: string | null;
  @ApiProperty({ nullable: true, type: String }) serviceName: string | null;
  @ApiProperty({ nullable: true, type: String }) groupName: string | null;
  @ApiProperty({ nullable: true, type: String }) namespaceId: string | null;
  @ApiProperty({ nullable: true, enum: MCP_SERVICE_TRANSPORTS }) transport: McpServiceTransport | null;
  @ApiProperty({ nullable: true, type: String }) path: string | null;
  @ApiProperty({ nullable: true, type: String }) tenantId: string | null;
  @ApiProperty() toolPrefix: string;
  @ApiProperty({
    type: 'object',
    nullable: true,
    additionalProperties: { type: 'string' },
    description: 'Header templates (secret references, never values)',
  })
  headers: Record<string, string> | null;
  @ApiProperty({
    enum: MCP_SERVICE_HEALTHS,
    description: 'UP: an instance answered tools/list at the last check or sync',
  })
  health: McpServiceHealth;
  @ApiProperty({ nullable: true, type: String }) healthReason: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'ISO-8601 time of the last successful sync' }) lastSyncAt:
    string | null;
  @ApiProperty({
    nullable: true,
    type: McpSyncReportDto,
    description: "The last sync's report (on create: the first sync's)",
  })
  lastSync: McpSyncReportDto | null;
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
}

export class McpServicePageDto extends PageMetaDto {
  @ApiProperty({ type: [McpServiceDto] }) items: McpServiceDto[];
}
