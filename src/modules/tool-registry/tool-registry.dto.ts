import { IsSafeLine, IsSafeText } from '@app/common/safe-text';
import { ApiProperty, ApiPropertyOptional, PartialType, OmitType } from '@nestjs/swagger';
import { IsOmittable, PATCH_PARTIAL } from '@app/common/dto/omittable.decorator';
import { IsQueryBoolean } from '@app/common/dto/query-boolean.decorator';
import { Type } from 'class-transformer';
import { ToolChecklistDto } from './checklist/tool-checklist.dto';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { CharLength } from '@app/common/text/char-length';
import {
  HTTP_METHODS,
  HttpMethod,
  JsonSchema,
  REJECT_POLICIES,
  RejectPolicy,
  SERVICE_TYPES,
  ServiceType,
  SIDE_EFFECT_LEVELS,
  SideEffectLevel,
  TENANT_ID_PATTERN,
  TOOL_NAME_PATTERN,
  TOOL_REQUIREMENTS,
  AGENT_PROVISIONS,
  type Dependency,
  TOOL_SOURCES,
  TOOL_STATUSES,
  ToolRequirement,
  ToolSource,
  ToolStatus,
} from './tool-registry.types';
import { PageMetaDto, PageQueryDto } from '@app/common/dto/page.dto';
import { HEADERS_MAX_JSON_BYTES, MaxJsonBytes } from '@app/common/json-size';

export class ToolHitlDto {
  @ApiPropertyOptional({ description: 'Text shown to the reviewer', maxLength: 2000 })
  @IsOptional()
  @IsString()
  @CharLength(1, 2000)
  @IsSafeText()
  approvalText?: string;

  @ApiPropertyOptional({ enum: REJECT_POLICIES, default: 'RETURN_ERROR' })
  @IsOptional()
  @IsIn(REJECT_POLICIES)
  rejectPolicy?: RejectPolicy;
}

export class ToolResultPolicyDto {
  @ApiPropertyOptional({ description: 'Longer results come back truncated, paged with READ_TOOL_RESULT', minimum: 100 })
  @IsOptional()
  @IsInt()
  @Min(100)
  @Max(10_000_000)
  maxInlineChars?: number;

  @ApiPropertyOptional({ type: [String], description: 'Argument/result field names masked in logs and reviews' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @CharLength(1, 128, { each: true })
  redactFields?: string[];
}

export class CreateToolDto {
  @ApiProperty({ pattern: TOOL_NAME_PATTERN.source, example: 'order_lookup' })
  @IsString()
  @Matches(TOOL_NAME_PATTERN, {
    message: 'name must be 1-64 letters, digits, _ or -, starting with a letter or _ (what every major model accepts)',
  })
  name: string;

  @ApiProperty({ maxLength: 8000, example: 'Looks up an order by its id.' })
  @IsString()
  @CharLength(1, 8000)
  @IsSafeText()
  description: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'JSON Schema of the arguments; type object',
    example: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
  })
  @IsObject()
  parameters: JsonSchema;

  @ApiProperty({ enum: SERVICE_TYPES })
  @IsIn(SERVICE_TYPES)
  serviceType: ServiceType;

  @ApiProperty({
    description: 'HTTP: URL · MCP_REMOTE: server URL · MCP_NACOS: "service@group" · LOCAL/FEIGN: "Provider.method"',
    example: 'https://orders.example.com/orders/{orderId}',
  })
  @IsString()
  @CharLength(1, 2048)
  endpoint: string;

  @ApiPropertyOptional({ enum: HTTP_METHODS, description: 'HTTP tools; default POST' })
  @IsOptional()
  @IsIn(HTTP_METHODS)
  httpMethod?: HttpMethod;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description:
      "HTTP and MCP_REMOTE tools: headers sent on every request; credentials only as ${secret:NAME}, never literal (a platform-wide tool reads TOOL_SECRETS, a tenant's tool only that tenant's secrets). A tenant admin sees a platform tool's references as ${secret:***}",
    example: { Authorization: 'Bearer ${secret:ORDERS_TOKEN}' },
  })
  @IsOptional()
  @IsObject()
  @MaxJsonBytes(HEADERS_MAX_JSON_BYTES)
  headers?: Record<string, string>;

  @ApiPropertyOptional({ description: 'Outer budget of a call (ms), replacing TOOL_DEFAULT_TIMEOUT_MS', minimum: 1 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(3_600_000)
  timeoutMs?: number;

  @ApiProperty({ type: [String], description: 'A user sees the tool only when holding every tag' })
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @CharLength(1, 128, { each: true })
  @IsSafeLine({ each: true })
  permissionTags: string[];

  @ApiProperty({ enum: SIDE_EFFECT_LEVELS })
  @IsIn(SIDE_EFFECT_LEVELS)
  sideEffect: SideEffectLevel;

  @ApiPropertyOptional({ description: 'MCP: the tool name on the server (default: name)', maxLength: 128 })
  @IsOptional()
  @IsString()
  @CharLength(1, 128)
  @IsSafeLine()
  remoteName?: string;

  @ApiPropertyOptional({ enum: TOOL_REQUIREMENTS, isArray: true })
  @IsOmittable()
  @IsArray()
  @IsIn(TOOL_REQUIREMENTS, { each: true })
  requires?: ToolRequirement[];

  @ApiPropertyOptional({ default: true })
  @IsOmittable()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({
    nullable: true,
    description: 'null = platform-wide (platform admin only); a tenant admin creates in its own tenant',
  })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @Matches(TENANT_ID_PATTERN, { message: 'tenantId must be 1-64 letters, digits, _ . or -' })
  tenantId?: string | null;

  @ApiPropertyOptional({ type: ToolHitlDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ToolHitlDto)
  hitl?: ToolHitlDto;

  @ApiPropertyOptional({ type: ToolResultPolicyDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ToolResultPolicyDto)
  result?: ToolResultPolicyDto;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @CharLength(1, 64, { each: true })
  @IsSafeLine({ each: true })
  tags?: string[];
}

export class UpdateToolDto extends PartialType(OmitType(CreateToolDto, ['tenantId'] as const), PATCH_PARTIAL) {
  @ApiPropertyOptional({
    enum: ['ACTIVE', 'RETIRED'],
    description: 'RETIRED retires (as DELETE); ACTIVE revives a retired tool',
  })
  @IsOmittable()
  @IsIn(['ACTIVE', 'RETIRED'])
  status?: 'ACTIVE' | 'RETIRED';
}

export class ListToolsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: TOOL_SOURCES }) @IsOptional() @IsIn(TOOL_SOURCES) source?: ToolSource;
  @ApiPropertyOptional({ enum: SERVICE_TYPES }) @IsOptional() @IsIn(SERVICE_TYPES) serviceType?: ServiceType;
  @ApiPropertyOptional({ enum: TOOL_STATUSES }) @IsOptional() @IsIn(TOOL_STATUSES) status?: ToolStatus;
  @ApiPropertyOptional() @IsOptional() @IsQueryBoolean() enabled?: boolean;
  @ApiPropertyOptional({ description: 'Substring of name or description' })
  @IsOptional()
  @IsString()
  @CharLength(1, 200)
  q?: string;
  @ApiPropertyOptional({ description: "Platform admin only: one tenant's tools (and platform-wide ones)" })
  @IsOptional()
  @Matches(TENANT_ID_PATTERN, { message: 'tenantId must be 1-64 letters, digits, _ . or -' })
  tenantId?: string;
}

export class ToolDto extends OmitType(CreateToolDto, ['requires'] as const) {
  @ApiProperty() id: string;
  @ApiProperty({ nullable: true, type: String }) declare tenantId: string | null;
  @ApiProperty({ description: 'Bumped by every change' }) version: number;
  @ApiProperty({ enum: TOOL_STATUSES }) status: ToolStatus;
  @ApiProperty({ enum: TOOL_SOURCES }) source: ToolSource;
  @ApiPropertyOptional({
    enum: [...TOOL_REQUIREMENTS, ...AGENT_PROVISIONS],
    isArray: true,
    description: "Built-ins may also need the agent's configuration: SKILL, KNOWLEDGE_BASE, SUB_AGENT",
  })
  requires?: Dependency[];
  @ApiProperty({ nullable: true, type: String }) mcpServiceId: string | null;
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
}

/** What create and PATCH answer: the tool and its new-tool checklist. */
export class ToolWithChecklistDto extends ToolDto {
  @ApiProperty({ type: ToolChecklistDto }) checklist: ToolChecklistDto;
}

export class ToolPageDto extends PageMetaDto {
  @ApiProperty({ type: [ToolDto] }) items: ToolDto[];
}
