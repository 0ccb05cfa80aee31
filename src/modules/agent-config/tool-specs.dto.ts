import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { EMITTED, VISIBILITY_LAYERS, VisibilityLayer } from './visibility/visibility.types';

export class VisibilityDecisionDto {
  @ApiProperty() toolId: string;
  @ApiProperty({ nullable: true, type: String }) name: string | null;
  @ApiProperty() visible: boolean;
  @ApiProperty({ enum: [...VISIBILITY_LAYERS, EMITTED] }) layer: VisibilityLayer | typeof EMITTED;
  @ApiProperty() reason: string;
  @ApiPropertyOptional({
    type: [String],
    description:
      "What a visible tool's spec changed and why, in every format: each node the rewrite drops or reshapes (or whose keywords it moves into the description), by JSON pointer " +
      '(`#/properties/x: ...`), a description cut to the provider cap, and why it was emitted with strict: false in a strict request',
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
