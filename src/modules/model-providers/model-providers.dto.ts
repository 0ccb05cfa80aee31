import { PATCH_PARTIAL } from '@app/common/dto/omittable.decorator';
import { ApiProperty, ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  Validate,
  ValidateIf,
  ValidateNested,
  ValidatorConstraint,
  type ValidationArguments,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { CharLength } from '@app/common/text/char-length';
import { IsSafeLine, IsTrimmed } from '@app/common/safe-text';
import { PageMetaDto } from '@app/common/dto/page.dto';
import { TENANT_ID_PATTERN } from '@app/modules/tool-registry/tool-registry.types';
import { API_KEY_REF_PATTERN, MODEL_PROVIDER_KINDS, type ModelProviderKind } from './model-providers.types';

/** The answer's reserve must leave room for the conversation in the context window. */
@ValidatorConstraint({ name: 'maxTokensWithinContextWindow' })
class MaxTokensWithinContextWindow implements ValidatorConstraintInterface {
  validate(maxTokens: unknown, args: ValidationArguments): boolean {
    const window = (args.object as ModelProviderOptionsDto).contextWindowTokens;
    return typeof maxTokens !== 'number' || typeof window !== 'number' || maxTokens < window;
  }

  defaultMessage(): string {
    return 'maxTokens must be less than contextWindowTokens (the answer shares the window with the conversation)';
  }
}

export class ModelProviderOptionsDto {
  @ApiPropertyOptional({ minimum: 0, maximum: 2 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(2)
  temperature?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 1 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  topP?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 1_000_000 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  @Validate(MaxTokensWithinContextWindow)
  maxTokens?: number;

  @ApiPropertyOptional({
    minimum: 1024,
    maximum: 10_000_000,
    description:
      "The model's context window in tokens. When set, a conversation that would not fit is sent its latest part: " +
      'older tool results are replaced by a note (READ_TOOL_RESULT reads them again), then the oldest turns are ' +
      'left out. Unset: the whole conversation is sent.',
  })
  @IsOptional()
  @IsInt()
  @Min(1024)
  @Max(10_000_000)
  contextWindowTokens?: number;

  @ApiPropertyOptional({ minimum: 1000, maximum: 3_600_000, description: 'Budget of one model request' })
  @IsOptional()
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  timeoutMs?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 10, description: 'Retries on 408/409/429/5xx and cut connections' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10)
  maxRetries?: number;
}

export class CreateModelProviderDto {
  @ApiProperty({ maxLength: 128, example: 'local-vllm' })
  @IsString()
  @CharLength(1, 128)
  @IsSafeLine()
  @IsTrimmed()
  name: string;

  @ApiPropertyOptional({
    nullable: true,
    description:
      "null/absent = platform-wide (platform admin only; key from TOOL_SECRETS); a tenant's own uses its tenant secrets",
  })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @Matches(TENANT_ID_PATTERN, { message: 'tenantId must be 1-64 letters, digits, _ . or -' })
  tenantId?: string | null;

  @ApiProperty({ enum: MODEL_PROVIDER_KINDS })
  @IsIn(MODEL_PROVIDER_KINDS)
  kind: ModelProviderKind;

  @ApiProperty({ example: 'http://127.0.0.1:11434/v1', description: 'The OpenAI-compatible base URL (…/v1)' })
  @IsString()
  @CharLength(1, 2048)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false })
  baseUrl: string;

  @ApiPropertyOptional({
    example: '${secret:OPENAI_KEY}',
    nullable: true,
    description: 'A secret reference, never a literal key; omit for a server that needs none',
  })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @Matches(API_KEY_REF_PATTERN, {
    message:
      'apiKey must be a secret reference ${secret:NAME} (store the key with PUT /api/v1/admin/tenants/{tenantId}/secrets/{name}, or TOOL_SECRETS for a platform-wide provider), never the key itself',
  })
  apiKey?: string | null;

  @ApiProperty({ maxLength: 256, example: 'qwen2.5:7b' })
  @IsString()
  @CharLength(1, 256)
  @IsSafeLine()
  model: string;

  @ApiPropertyOptional({ type: ModelProviderOptionsDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ModelProviderOptionsDto)
  options?: ModelProviderOptionsDto;
}

export class UpdateModelProviderDto extends PartialType(
  OmitType(CreateModelProviderDto, ['tenantId'] as const),
  PATCH_PARTIAL,
) {}

export class ModelProviderDto {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty({ nullable: true, type: String }) tenantId: string | null;
  @ApiProperty({ enum: MODEL_PROVIDER_KINDS }) kind: ModelProviderKind;
  @ApiProperty() baseUrl: string;
  @ApiProperty({ nullable: true, type: String, description: 'The secret reference (never its value)' })
  apiKey: string | null;
  @ApiProperty() model: string;
  @ApiProperty({ type: ModelProviderOptionsDto }) options: ModelProviderOptionsDto;
  @ApiProperty() version: number;
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
}

export class ModelProviderPageDto extends PageMetaDto {
  @ApiProperty({ type: [ModelProviderDto] }) items: ModelProviderDto[];
}
