import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Validate,
  ValidateIf,
  ValidationArguments,
  ValidatorConstraint,
  ValidatorConstraintInterface,
} from 'class-validator';
import { CharLength } from '@app/common/text/char-length';
import { RISK_RULES, RiskHint, RiskRule } from './risk.types';

const RISK_HINTS: readonly RiskHint[] = ['auto', 'shell', 'sql'];

@ValidatorConstraint({ name: 'textOrArguments' })
export class TextXorArguments implements ValidatorConstraintInterface {
  validate(_value: unknown, args: ValidationArguments): boolean {
    const body = args.object as RiskEvaluateRequestDto;
    return (body.text !== undefined) !== (body.arguments !== undefined);
  }

  defaultMessage(): string {
    return 'send exactly one of text or arguments';
  }
}

/** `{text}` to evaluate a command line or SQL, or `{toolName?, arguments}` to evaluate a tool call. */
export class RiskEvaluateRequestDto {
  @ApiPropertyOptional({
    example: 'git push --force origin main',
    maxLength: 100_000,
    description: 'A command line or SQL text; exclusive with arguments',
  })
  @ValidateIf((body: RiskEvaluateRequestDto) => body.text !== undefined || body.arguments === undefined)
  @Validate(TextXorArguments)
  @IsString()
  @CharLength(0, 100_000)
  text?: string;

  @ApiPropertyOptional({
    enum: RISK_HINTS,
    default: 'auto',
    description: 'How to read text: as shell, as SQL, or guess',
  })
  @IsOptional()
  @IsIn(RISK_HINTS)
  hint?: RiskHint;

  @ApiPropertyOptional({
    example: 'run_shell',
    description: "Tool whose input schema's x-risk hints apply to arguments",
  })
  @IsOptional()
  @IsString()
  @CharLength(1, 128)
  toolName?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { command: 'rm -rf /tmp/build' },
    description: 'Tool arguments; every string in them is evaluated',
  })
  @ValidateIf((body: RiskEvaluateRequestDto) => body.arguments !== undefined)
  @IsObject()
  arguments?: Record<string, unknown>;
}

export class RiskMatchDto {
  @ApiProperty({ enum: RISK_RULES }) rule: RiskRule;
  @ApiProperty({ description: 'The offending snippet (about 200 characters at most)' }) match: string;
  @ApiPropertyOptional({ example: 'steps[1].sql', description: 'Where in the arguments the snippet was found' })
  path?: string;
}

export class RiskEvaluateResponseDto {
  @ApiProperty() risky: boolean;
  @ApiProperty({ type: [RiskMatchDto] }) rules: RiskMatchDto[];
}
