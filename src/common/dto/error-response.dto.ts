import { ApiProperty } from '@nestjs/swagger';

class ErrorPayloadDto {
  @ApiProperty({ example: 'VALIDATION_FAILED' }) code: string;
  @ApiProperty({
    example: 'Invalid request: name: must match ^[a-zA-Z0-9_-]{1,64}$. Fix these fields and send it again.',
  })
  message: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) details: Record<string, unknown>;
}

/** The contract's error body `{"error":{code,message,details}}`. */
export class ErrorResponseDto {
  @ApiProperty({ type: ErrorPayloadDto }) error: ErrorPayloadDto;
}
