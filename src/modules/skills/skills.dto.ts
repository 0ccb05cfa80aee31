import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageMetaDto } from '@app/common/dto/page.dto';
import { IsIdList } from '@app/common/dto/id-list.decorator';

/** Skills one agent may have bound (PUT .../skills, and skillIds on create and PATCH). */
export const AGENT_SKILLS_MAX = 100;
import { TENANT_ID_PATTERN } from '@app/modules/tool-registry/tool-registry.types';

/** JSON form of a skill upload (the multipart form carries the same as a zip). */
export interface SkillJsonUpload {
  tenantId?: string | null;
  skillContent: string;
  files?: Array<{ path: string; contentBase64: string }>;
}

export const SKILL_JSON_UPLOAD_SCHEMA = {
  type: 'object',
  properties: {
    tenantId: { anyOf: [{ type: 'string', pattern: TENANT_ID_PATTERN.source }, { type: 'null' }] },
    skillContent: { type: 'string', minLength: 1 },
    files: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          path: { type: 'string', minLength: 1, maxLength: 512 },
          contentBase64: { type: 'string', pattern: '^[A-Za-z0-9+/]*={0,2}$' },
        },
        required: ['path', 'contentBase64'],
        additionalProperties: false,
      },
    },
  },
  required: ['skillContent'],
  additionalProperties: false,
};

/** Swagger: the JSON body. */
export class SkillJsonUploadDto {
  @ApiPropertyOptional({
    nullable: true,
    type: String,
    pattern: TENANT_ID_PATTERN.source,
    description: 'Owner tenant; null or absent: official (platform key only)',
  })
  tenantId?: string | null;

  @ApiProperty({ description: 'SKILL.md: YAML front matter (name, description), then the instructions' })
  skillContent: string;

  @ApiPropertyOptional({
    type: 'array',
    items: {
      type: 'object',
      properties: { path: { type: 'string', example: 'scripts/run.py' }, contentBase64: { type: 'string' } },
      required: ['path', 'contentBase64'],
    },
    description: 'Files beside SKILL.md (text only), paths relative to the skill folder',
  })
  files?: Array<{ path: string; contentBase64: string }>;
}

/** Swagger: the multipart form. */
export class SkillZipUploadDto {
  @ApiProperty({
    type: 'string',
    format: 'binary',
    description: 'The skill folder as a .zip (SKILL.md at its root or in one top folder)',
  })
  file: unknown;

  @ApiPropertyOptional({
    pattern: TENANT_ID_PATTERN.source,
    description: 'Owner tenant; absent: official (platform key only)',
  })
  tenantId?: string;
}

export class SkillReleaseDto {
  @ApiProperty() version: number;
  @ApiProperty() fileCount: number;
  @ApiProperty({ description: 'Unpacked bytes of all files' }) totalBytes: number;
  @ApiProperty() createdAt: string;
  @ApiProperty({ nullable: true, type: String, description: 'When it was last made current; null: never published' })
  publishedAt: string | null;
  @ApiProperty({ description: 'The release SKILL_CALL reads' }) current: boolean;
}

export class SkillDto {
  @ApiProperty() id: string;
  @ApiProperty({ example: 'pdf-tables' }) name: string;
  @ApiProperty() description: string;
  @ApiProperty({ nullable: true, type: String }) tenantId: string | null;
  @ApiProperty({ description: 'Platform-wide (tenantId null): every tenant may read and bind it' }) official: boolean;
  @ApiProperty({ nullable: true, type: Number }) currentVersion: number | null;
  @ApiProperty() latestVersion: number;
  @ApiProperty({ type: [SkillReleaseDto] }) releases: SkillReleaseDto[];
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
}

export class SkillPageDto extends PageMetaDto {
  @ApiProperty({ type: [SkillDto] }) items: SkillDto[];
}

export class SkillFileDto {
  @ApiProperty({ example: 'scripts/extract.py' }) path: string;
  @ApiProperty() bytes: number;
  @ApiProperty({ description: 'Characters (what offset and limit of SKILL_CALL count)' }) totalChars: number;
}

export class SkillFilePageDto extends PageMetaDto {
  @ApiProperty({ type: [SkillFileDto] }) items: SkillFileDto[];
}

export class AgentSkillsDto {
  @ApiProperty({ type: [String], description: "Skills of the agent's tenant or official ones" })
  @IsIdList(AGENT_SKILLS_MAX)
  skillIds: string[];
}
