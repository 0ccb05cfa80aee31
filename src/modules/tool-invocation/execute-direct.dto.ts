import { ApiProperty } from '@nestjs/swagger';

export class ExecuteDirectResponseDto {
  @ApiProperty({ enum: ['COMPLETED', 'FAILED'] }) status: 'COMPLETED' | 'FAILED';
  @ApiProperty({ description: 'What the model reads; a failure reads 执行失败: <reason>' }) content: string;
  @ApiProperty() isError: boolean;
  @ApiProperty() attempts: number;
  @ApiProperty() durationMs: number;
  @ApiProperty() toolCallId: string;
  @ApiProperty({ nullable: true, type: String }) errorClass: string | null;
}
