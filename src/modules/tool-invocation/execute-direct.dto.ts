import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, Length, Validate, ValidatorConstraint, ValidatorConstraintInterface } from 'class-validator';
import { TOOL_REQUIREMENTS, ToolRequirement } from '@app/modules/tool-registry/tool-registry.types';

@ValidatorConstraint({ name: 'toolArguments' })
export class IsToolArguments implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' || (typeof value === 'object' && value !== null && !Array.isArray(value));
  }
  defaultMessage(): string {
    return 'arguments must be a JSON object or a JSON string of one';
  }
}

export class ExecuteDirectDto {
  @ApiPropertyOptional({ description: 'Check the call against this agent\'s bindings and policies' })
  @IsOptional()
  @IsString()
  @Length(1, 36)
  agentId?: string;

  @ApiProperty({ example: 'u-42' })
  @IsString()
  @Length(1, 128)
  userId: string;

  @ApiProperty({ type: [String] })
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @Length(1, 128, { each: true })
  permissions: string[];

  @ApiProperty({ oneOf: [{ type: 'object' }, { type: 'string' }], description: 'An object, or a JSON string of one' })
  @Validate(IsToolArguments)
  arguments: Record<string, unknown> | string;

  @ApiPropertyOptional({ enum: TOOL_REQUIREMENTS, isArray: true })
  @IsOptional()
  @IsArray()
  @IsIn(TOOL_REQUIREMENTS, { each: true })
  capabilities?: ToolRequirement[];

  @ApiPropertyOptional({ description: 'Idempotency key sent to HTTP tools (default: generated)', maxLength: 128 })
  @IsOptional()
  @IsString()
  @Length(1, 128)
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
