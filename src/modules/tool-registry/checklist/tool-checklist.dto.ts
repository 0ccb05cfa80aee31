import { ApiProperty } from '@nestjs/swagger';
import { CHECK_STATUSES, CheckStatus, TOOL_CHECKS, ToolCheck } from './tool-checklist.types';

export class ToolChecklistItemDto {
  @ApiProperty({ enum: TOOL_CHECKS }) check: ToolCheck;
  @ApiProperty({ enum: CHECK_STATUSES }) status: CheckStatus;
  @ApiProperty({ description: 'What was found and how to fix it' }) message: string;
}

export class ToolChecklistDto {
  @ApiProperty({ description: 'False when any item FAILs' }) ok: boolean;
  @ApiProperty({ type: [ToolChecklistItemDto] }) items: ToolChecklistItemDto[];
}
