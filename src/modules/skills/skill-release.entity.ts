import { Column, Entity, PrimaryColumn } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';

/** One immutable release of a skill (its files are `skill_file` rows). */
@Entity({ name: 'skill_release' })
export class SkillReleaseEntity {
  @PrimaryColumn({ name: 'skill_id', type: 'varchar', length: 36 })
  skillId: string;

  @PrimaryColumn({ type: 'int' })
  version: number;

  /** name and description of this release's front matter (they become the skill's when it is published). */
  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ type: 'text' })
  description: string;

  @Column({ name: 'file_count', type: 'int' })
  fileCount: number;

  @Column({ name: 'total_bytes', type: 'int' })
  totalBytes: number;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;

  /** When it was last made current; null: never published. */
  @Column({ name: 'published_at', type: 'bigint', nullable: true, transformer: epochMs })
  publishedAt: number | null;
}
