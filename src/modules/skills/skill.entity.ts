import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';

/** A skill: its name and description (from the current release's SKILL.md front matter) and which release is current. */
@Entity({ name: 'skill' })
@Index('uq_skill_scope_name', ['scopeKey', 'name'], { unique: true })
export class SkillEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  /** null: an official, platform-wide skill. */
  @Column({ name: 'tenant_id', type: 'varchar', length: 64, nullable: true })
  tenantId: string | null;

  /** The tenant id, or '' for official skills: names are unique per scope (a NULL would never collide). */
  @Column({ name: 'scope_key', type: 'varchar', length: 64 })
  scopeKey: string;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ type: 'text' })
  description: string;

  /** The published release SKILL_CALL reads (null only while none is published). */
  @Column({ name: 'current_version', type: 'int', nullable: true })
  currentVersion: number | null;

  @Column({ name: 'latest_version', type: 'int' })
  latestVersion: number;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochMs })
  updatedAt: number;
}
