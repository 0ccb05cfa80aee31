import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { CharLength } from '@app/common/text/char-length';
import { IsQueryBoolean } from '@app/common/dto/query-boolean.decorator';
import { PageMetaDto, PageQueryDto } from '@app/common/dto/page.dto';

export class WorkspacePathQueryDto {
  @ApiPropertyOptional({ description: 'Path relative to the workspace root (default: the root for listings)' })
  @IsOptional()
  @IsString()
  @CharLength(0, 1024)
  path?: string;
}

/** A listing is a list like every other: `page` and `pageSize` as everywhere. */
export class WorkspaceListQueryDto extends IntersectionType(WorkspacePathQueryDto, PageQueryDto) {
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

/** The contract's list shape (`{items, total, page, pageSize}`), with the folder listed. */
export class WorkspaceListingDto extends PageMetaDto {
  @ApiProperty() path: string;
  @ApiProperty({ type: [WorkspaceEntryDto] }) items: WorkspaceEntryDto[];
  @ApiProperty({ description: 'More than 1000 entries: the rest was left out (total counts the 1000 listed)' })
  truncated: boolean;
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
