import { IsSafeLine, IsSafeText, IsTrimmed } from '@app/common/safe-text';
import { ApiProperty, ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  ValidateIf,
} from 'class-validator';
import { CharLength } from '@app/common/text/char-length';
import {
  HITL_REVIEWERS,
  HitlReviewer,
  SIDE_EFFECT_POLICIES,
  SideEffectPolicy,
  WEB_SEARCH_MODES,
  WebSearchMode,
} from './agent-config.types';
import { TENANT_ID_PATTERN } from '@app/modules/tool-registry/tool-registry.types';
import { PageMetaDto } from '@app/common/dto/page.dto';
import { IsOmittable, PATCH_PARTIAL } from '@app/common/dto/omittable.decorator';
import { IsIdList } from '@app/common/dto/id-list.decorator';
import { AGENT_SKILLS_MAX } from '@app/modules/skills/skills.dto';

export class CreateAgentDto {
  @ApiProperty({ maxLength: 128, example: 'support-bot' })
  @IsString()
  @CharLength(1, 128)
  @IsSafeLine()
  @IsTrimmed()
  name: string;

  @ApiProperty({ example: 'acme', description: 'A tenant admin key may only use its own tenant' })
  @IsString()
  @Matches(TENANT_ID_PATTERN, { message: 'tenantId must be 1-64 letters, digits, _ . or -' })
  tenantId: string;

  @ApiPropertyOptional({ maxLength: 4000 })
  @IsOptional()
  @IsString()
  @CharLength(0, 4000)
  @IsSafeText()
  description?: string;

  @ApiPropertyOptional({
    enum: WEB_SEARCH_MODES,
    default: 'DISABLED',
    description:
      'Platform web_search, when the tenant capability webSearch is on and a provider is configured: DISABLED never offers it; AUTO offers it and the model decides; ALWAYS offers it and tool-specs adds a toolChoice that makes the model search. A runtime request may only narrow it.',
  })
  @IsOmittable()
  @IsIn(WEB_SEARCH_MODES)
  webSearchMode?: WebSearchMode;

  @ApiPropertyOptional({ enum: SIDE_EFFECT_POLICIES, default: 'ALLOW' })
  @IsOmittable()
  @IsIn(SIDE_EFFECT_POLICIES)
  sideEffectPolicy?: SideEffectPolicy;

  @ApiPropertyOptional({
    enum: HITL_REVIEWERS,
    default: 'RUNTIME',
    description:
      "Who decides this agent's HITL requests. ADMIN: only an admin (POST /api/v1/admin/hitl/{id}/decision); the runtime may still continue a CHECKPOINT_PAUSE",
  })
  @IsOmittable()
  @IsIn(HITL_REVIEWERS)
  hitlReviewer?: HitlReviewer;

  @ApiPropertyOptional({ minimum: 1, maximum: 1000, default: 20 })
  @IsOmittable()
  @IsInt()
  @Min(1)
  @Max(1000)
  maxIterations?: number;

  @ApiPropertyOptional({ type: [String], description: 'Skills bound to the agent' })
  @IsOmittable()
  @IsIdList(AGENT_SKILLS_MAX)
  skillIds?: string[];

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    description: "The gateway's own loop asks this model provider (the tenant's own or platform-wide); null: none",
  })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @CharLength(1, 36)
  modelProviderId?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 100_000, description: "The loop's system prompt" })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @CharLength(0, 100_000)
  systemPrompt?: string | null;

  @ApiPropertyOptional({
    type: [String],
    description: 'Agents of the same tenant this agent may delegate to (SUB_AGENT_CALL, SUBMIT_SUBAGENT_TASK)',
  })
  @IsOptional()
  @IsIdList(100)
  subAgentIds?: string[];
}

export class UpdateAgentDto extends PartialType(OmitType(CreateAgentDto, ['tenantId'] as const), PATCH_PARTIAL) {}

export class AgentDto {
  @ApiProperty() id: string;
  @ApiProperty() tenantId: string;
  @ApiProperty() name: string;
  @ApiProperty({ nullable: true, type: String }) description: string | null;
  @ApiProperty({ enum: WEB_SEARCH_MODES }) webSearchMode: WebSearchMode;
  @ApiProperty({ enum: SIDE_EFFECT_POLICIES }) sideEffectPolicy: SideEffectPolicy;
  @ApiProperty({ enum: HITL_REVIEWERS }) hitlReviewer: HitlReviewer;
  @ApiProperty() maxIterations: number;
  @ApiProperty({ type: [String] }) toolIds: string[];
  @ApiProperty({ type: [String] }) skillIds: string[];
  @ApiProperty({ nullable: true, type: String }) modelProviderId: string | null;
  @ApiProperty({ nullable: true, type: String }) systemPrompt: string | null;
  @ApiProperty({ type: [String] }) subAgentIds: string[];
  @ApiProperty({ type: [String], description: 'Knowledge bases RAG_SEARCH searches (PUT .../knowledge-bases)' })
  knowledgeBaseIds: string[];
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
}

export class AgentPageDto extends PageMetaDto {
  @ApiProperty({ type: [AgentDto] }) items: AgentDto[];
}

/** The most tools one agent may be bound to (PUT .../tools and POST .../tools). */
export const AGENT_TOOL_BINDINGS_MAX = 5000;

export class ReplaceBindingsDto {
  @ApiProperty({ type: [String], description: 'The complete set of tools the agent may call' })
  @IsArray()
  @ArrayMaxSize(AGENT_TOOL_BINDINGS_MAX)
  @IsString({ each: true })
  @CharLength(1, 36, { each: true })
  toolIds: string[];
}

export class AddBindingDto {
  @ApiProperty()
  @IsString()
  @CharLength(1, 36)
  toolId: string;
}

export class TenantCapabilitiesDto {
  @ApiProperty({ description: 'Platform web search for this tenant' })
  @IsBoolean()
  webSearch: boolean;
}

export class TenantCapabilitiesResponseDto extends TenantCapabilitiesDto {
  @ApiProperty() tenantId: string;
  @ApiProperty() updatedAt: string;
}
