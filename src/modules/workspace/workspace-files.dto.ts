import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { CharLength } from '@app/common/text/char-length';
import { IsQueryBoolean } from '@app/common/dto/query-boolean.decorator';

export class WorkspacePathQueryDto {
  @ApiPropertyOptional({ description: 'Path relative to the workspace root (default: the root for listings)' })
  @IsOptional()
  @IsString()
  @CharLength(0, 1024)
  path?: string;
}

export class WorkspaceListQueryDto extends WorkspacePathQueryDto {
  @ApiPropertyOptional({ default: false, description: 'List everything below the folder' })
  @IsOptional()
  @IsQueryBoolean()
  recursive?: boolean;
}

export class WorkspaceEntryDto {
  @ApiProperty() path: string;
  @ApiProperty({ enum: ['file', 'directory', 'symlink', 'other'] }) type: string;
  @ApiProperty({ description: 'Bytes (files only)' }) size: number;
  @ApiPropertyOptional({
    description:
      'true when a name in the path is not UTF-8 (a command made it; shown with U+FFFD): DELETE_FILE takes the path, the other tools refuse it until it is renamed (mv with RUN_COMMAND)',
  })
  pathNotUtf8?: boolean;
}

export class WorkspaceListingDto {
  @ApiProperty() path: string;
  @ApiProperty({ type: [WorkspaceEntryDto] }) entries: WorkspaceEntryDto[];
  @ApiProperty({ description: 'More than 1000 entries: the rest was left out' }) truncated: boolean;
}

export class WorkspaceWriteDto {
  @ApiProperty() path: string;
  @ApiProperty() bytes: number;
  @ApiProperty({ description: 'true: a new file (201); false: replaced (200)' }) created: boolean;
}

export class ArtifactDto {
  @ApiProperty() artifactId: string;
  @ApiProperty() sessionId: string;
  @ApiProperty() name: string;
  @ApiProperty({ nullable: true, type: String }) title: string | null;
  @ApiProperty({ description: 'The workspace path it was published from' }) path: string;
  @ApiProperty() size: number;
  @ApiProperty() sha256: string;
  @ApiProperty() createdAt: string;
}
