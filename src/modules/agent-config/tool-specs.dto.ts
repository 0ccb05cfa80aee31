import { IsSafeLine } from '@app/common/safe-text';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Length,
  Validate,
  ValidationArguments,
  ValidatorConstraint,
  ValidatorConstraintInterface,
} from 'class-validator';
import { TOOL_REQUIREMENTS, ToolRequirement } from '@app/modules/tool-registry/tool-registry.types';
import { WEB_SEARCH_MODES, WebSearchMode } from './agent-config.types';
import { MODEL_FORMATS, ModelFormat } from './formats/model-formats';
import { EMITTED, VISIBILITY_LAYERS, VisibilityLayer } from './visibility/visibility.types';

/** `strict` is OpenAI's mode: only with format openai (the default). */
@ValidatorConstraint({ name: 'strictNeedsOpenAi' })
class StrictNeedsOpenAi implements ValidatorConstraintInterface {
  validate(strict: unknown, args: ValidationArguments): boolean {
    return strict !== true || ((args.object as { format?: string }).format ?? 'openai') === 'openai';
  }

  defaultMessage(args: ValidationArguments): string {
    return `strict is OpenAI's mode: send it with format openai, or leave it out for format ${(args.object as { format?: string }).format}`;
  }
}

export class ToolSpecsRequestDto {
  @ApiProperty({ example: 'u-42' })
  @IsString()
  @Length(1, 128)
  @IsSafeLine()
  userId: string;

  @ApiProperty({ type: [String], description: 'Permission tags the user holds' })
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @Length(1, 128, { each: true })
  permissions: string[];

  @ApiPropertyOptional({
    description:
      "A session of this agent: its permissions and capabilities replace the body's, and the answer adds reminders",
  })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  sessionId?: string;

  @ApiPropertyOptional({ enum: TOOL_REQUIREMENTS, isArray: true, description: 'What the session can provide' })
  @IsOptional()
  @IsArray()
  @IsIn(TOOL_REQUIREMENTS, { each: true })
  capabilities?: ToolRequirement[];

  @ApiPropertyOptional({ enum: WEB_SEARCH_MODES, description: "Can only narrow the agent's mode" })
  @IsOptional()
  @IsIn(WEB_SEARCH_MODES)
  webSearchMode?: WebSearchMode;

  @ApiPropertyOptional({
    enum: MODEL_FORMATS,
    default: 'openai',
    description: "openai-responses: the Responses API's flat function tools, strict by default",
  })
  @IsOptional()
  @IsIn(MODEL_FORMATS)
  format?: ModelFormat;

  @ApiPropertyOptional({ description: 'Also return a decision for every candidate tool' })
  @IsOptional()
  @IsBoolean()
  explain?: boolean;

  @ApiPropertyOptional({
    description:
      'OpenAI strict mode (format openai only): each function carries strict: true and a schema strict mode accepts; ' +
      'a tool whose schema cannot be written that way is emitted with strict: false and, with explain, warnings in its decision',
  })
  @IsOptional()
  @IsBoolean()
  @Validate(StrictNeedsOpenAi)
  strict?: boolean;
}

export class VisibilityDecisionDto {
  @ApiProperty() toolId: string;
  @ApiProperty({ nullable: true, type: String }) name: string | null;
  @ApiProperty() visible: boolean;
  @ApiProperty({ enum: [...VISIBILITY_LAYERS, EMITTED] }) layer: VisibilityLayer | typeof EMITTED;
  @ApiProperty() reason: string;
  @ApiPropertyOptional({
    type: [String],
    description: 'Why a visible tool was emitted with strict: false in a strict request',
  })
  warnings?: string[];
}

export class ToolSpecsResponseDto {
  @ApiProperty({ type: 'array', items: { type: 'object' }, description: 'Tool specs in the requested model format' })
  tools: object[];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      "Present when the agent's webSearchMode (narrowed by the request) is ALWAYS and web_search is offered: what makes the model call web_search, in the " +
      'format\'s own words (openai: tool_choice {type:"function",function:{name}}; anthropic: tool_choice {type:"tool",name}; gemini: toolConfig ' +
      '{functionCallingConfig:{mode:"ANY",allowedFunctionNames}}). Send it with the model round that answers a new user message; under AUTO the model decides.',
  })
  toolChoice?: object;

  @ApiPropertyOptional({ type: [VisibilityDecisionDto] })
  decisions?: VisibilityDecisionDto[];

  @ApiPropertyOptional({
    type: [String],
    description: 'With sessionId: text to put before the next model round (the active skill, finished sub-agent tasks)',
  })
  reminders?: string[];
}
