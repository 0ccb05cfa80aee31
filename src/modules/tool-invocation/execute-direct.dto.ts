import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { TOOL_REQUIREMENTS, ToolRequirement } from '@app/modules/tool-registry/tool-registry.types';

/** Swagger shape of the executeDirect body; requests are validated by EXECUTE_DIRECT_BODY_SCHEMA (ajv). */
export class ExecuteDirectDto {
  @ApiProperty({
    description:
      'The agent the call is made for: the call is checked against its bindings and policies (being in the registry never makes a tool callable, only a binding does)',
    maxLength: 36,
  })
  agentId: string;

  @ApiProperty({ example: 'u-42', maxLength: 128 })
  userId: string;

  @ApiProperty({ type: [String], maxItems: 1000 })
  permissions: string[];

  @ApiProperty({ oneOf: [{ type: 'object' }, { type: 'string' }], description: 'An object, or a JSON string of one' })
  arguments: Record<string, unknown> | string;

  @ApiPropertyOptional({ enum: TOOL_REQUIREMENTS, isArray: true })
  capabilities?: ToolRequirement[];

  @ApiPropertyOptional({
    description:
      "The call's id (default: generated): remotes receive it as X-Tool-Call-Id, and an Idempotency-Key derived from it and the tenant",
    maxLength: 128,
  })
  toolCallId?: string;
}

export class ExecuteDirectResponseDto {
  @ApiProperty({ enum: ['COMPLETED', 'FAILED'] }) status: 'COMPLETED' | 'FAILED';
  @ApiProperty({ description: 'What the model reads; a failure reads 执行失败: <reason>' }) content: string;
  @ApiProperty() isError: boolean;
  @ApiProperty() attempts: number;
  @ApiProperty() durationMs: number;
  @ApiProperty() toolCallId: string;
  @ApiProperty({ nullable: true, type: String }) errorClass: string | null;
}
