import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageMetaDto, PageQueryDto } from '@app/common/dto/page.dto';
import {
  SERVICE_TYPES,
  TOOL_SOURCES,
  type ServiceType,
  type ToolSource,
} from '@app/modules/tool-registry/tool-registry.types';
import { FEIGN_TOOL_DRIFTS, type FeignToolDrift } from './feign-tool.drift';

export class FeignToolsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: FEIGN_TOOL_DRIFTS, description: 'Only tools with this drift' })
  @IsOptional()
  @IsIn(FEIGN_TOOL_DRIFTS)
  drift?: FeignToolDrift;
}

export class FeignToolDto {
  @ApiProperty({ example: 'get_order' }) name: string;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'The ai_tool row; null when the decorator is not registered (see problem)',
  })
  toolId: string | null;
  @ApiProperty({ example: 'DemoOrdersService' }) provider: string;
  @ApiProperty({ example: 'getOrder' }) method: string;
  @ApiProperty({ enum: TOOL_SOURCES, description: 'FEIGN (@FeignTool) or BUILTIN (@Tool)' }) source: ToolSource;
  @ApiProperty({ enum: SERVICE_TYPES }) serviceType: ServiceType;
  @ApiProperty({ nullable: true, type: Number }) version: number | null;
  @ApiProperty({
    enum: FEIGN_TOOL_DRIFTS,
    description:
      'IN_SYNC: the row is what the decorator says · DB_OVERRIDDEN: the row differs (an admin change, kept) · ORPHANED: the decorator is gone; the row is DISABLED, never deleted',
  })
  drift: FeignToolDrift;
  @ApiProperty({
    type: [String],
    description: 'Row fields that differ from the decorator',
    example: ['permissionTags'],
  })
  overriddenFields: string[];
  @ApiProperty({
    description: 'sha256 of the canonical JSON of the decorator definition (ORPHANED: the one last written)',
  })
  checksum: string;
  @ApiProperty({ nullable: true, type: String, description: 'The checksum stored on the row' }) rowChecksum:
    string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Why the decorator is not registered (a name clash), else null',
  })
  problem: string | null;
}

export class FeignToolPageDto extends PageMetaDto {
  @ApiProperty({ type: [FeignToolDto] }) items: FeignToolDto[];
}
