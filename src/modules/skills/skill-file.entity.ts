import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One chunk of one file of a release: files are stored as text in chunks of at most {@link SKILL_FILE_CHUNK_CHARS}
 * characters, so reading a slice loads only the chunks it touches. `bytes` and `totalChars` describe the whole file.
 */
@Entity({ name: 'skill_file' })
export class SkillFileEntity {
  @PrimaryColumn({ name: 'skill_id', type: 'varchar', length: 36 })
  skillId: string;

  @PrimaryColumn({ type: 'int' })
  version: number;

  /** Relative to the skill folder, `/`-separated (`SKILL.md`, `scripts/run.py`). */
  @PrimaryColumn({ type: 'varchar', length: 512 })
  path: string;

  @PrimaryColumn({ type: 'int' })
  chunk: number;

  /** Offset of the chunk's first character in the file (chunks never split a surrogate pair, so not chunk x size). */
  @Column({ name: 'char_start', type: 'int' })
  charStart: number;

  @Column({ type: 'int' })
  bytes: number;

  @Column({ name: 'total_chars', type: 'int' })
  totalChars: number;

  /** At most 8,192 characters (32 KB of UTF-8): fits TEXT on MySQL. */
  @Column({ type: 'text' })
  content: string;
}

/** Characters per stored chunk. */
export const SKILL_FILE_CHUNK_CHARS = 8192;
