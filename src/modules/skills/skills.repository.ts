import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Between, DataSource, EntityManager, In, IsNull } from 'typeorm';
import { SkillEntity } from './skill.entity';
import { SkillReleaseEntity } from './skill-release.entity';
import { SKILL_FILE_CHUNK_CHARS, SkillFileEntity } from './skill-file.entity';
import type { SkillPackageFile } from './skill-package.types';
import { wholeCharChunks } from '@app/common/text/whole-characters';

/** One file of a release as the index shows it. */
export interface SkillFileInfo {
  path: string;
  bytes: number;
  totalChars: number;
}

/** Rows per INSERT of file chunks: 64 chunks of at most 32 KB stay far below MySQL's packet limit. */
const CHUNKS_PER_INSERT = 64;

/** Queries of skills, releases and release files. Releases and their files are written once and never changed. */
@Injectable()
export class SkillsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  findSkill(id: string): Promise<SkillEntity | null> {
    return this.dataSource.getRepository(SkillEntity).findOne({ where: { id } });
  }

  /** The skill named `name` that `tenantId` may use: its own first, else the official one. */
  async findUsableByName(tenantId: string, name: string): Promise<SkillEntity | null> {
    const rows = await this.dataSource.getRepository(SkillEntity).find({
      where: [
        { scopeKey: tenantId, name },
        { scopeKey: '', name },
      ],
    });
    return rows.find((r) => r.tenantId === tenantId) ?? rows[0] ?? null;
  }

  /**
   * The skills of these ids. In a transaction `m` they are read with a shared lock on MySQL (SQLite runs one
   * transaction at a time): a deletion, which locks the skill's row first, waits until `m` ends, and a skill being
   * deleted is read once its deletion committed (gone).
   */
  findSkills(ids: readonly string[], m?: EntityManager): Promise<SkillEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    const where = { id: In(ids as string[]) };
    if (!m) return this.dataSource.getRepository(SkillEntity).find({ where });
    const mysql = this.dataSource.options.type !== 'better-sqlite3';
    return m.getRepository(SkillEntity).find({ where, ...(mysql && { lock: { mode: 'pessimistic_read' as const } }) });
  }

  /** Skills `tenantId` may see (its own and the official ones); every skill for the platform key (null). */
  listVisible(tenantId: string | null, skip: number, take: number): Promise<[SkillEntity[], number]> {
    return this.dataSource.getRepository(SkillEntity).findAndCount({
      where: tenantId === null ? {} : [{ tenantId }, { tenantId: IsNull() }],
      order: { name: 'ASC', id: 'ASC' },
      skip,
      take,
    });
  }

  releasesOf(skillIds: readonly string[]): Promise<SkillReleaseEntity[]> {
    if (skillIds.length === 0) return Promise.resolve([]);
    return this.dataSource
      .getRepository(SkillReleaseEntity)
      .find({ where: { skillId: In(skillIds as string[]) }, order: { version: 'ASC' } });
  }

  findRelease(skillId: string, version: number): Promise<SkillReleaseEntity | null> {
    return this.dataSource.getRepository(SkillReleaseEntity).findOne({ where: { skillId, version } });
  }

  async insertSkill(m: EntityManager, row: SkillEntity): Promise<void> {
    await m.getRepository(SkillEntity).insert(row);
  }

  /** Takes the next version number: false when another upload took it first (the caller retries). */
  async claimVersion(m: EntityManager, skillId: string, seenLatest: number): Promise<boolean> {
    const res = await m
      .getRepository(SkillEntity)
      .update({ id: skillId, latestVersion: seenLatest }, { latestVersion: seenLatest + 1, updatedAt: Date.now() });
    return (res.affected ?? 0) === 1;
  }

  /** Stores a release and its files (text cut into chunks). */
  async insertRelease(m: EntityManager, release: SkillReleaseEntity, files: SkillPackageFile[]): Promise<void> {
    await m.getRepository(SkillReleaseEntity).insert(release);
    const rows: SkillFileEntity[] = [];
    for (const f of files) {
      chunksOf(f.content).forEach((content, chunk, all) =>
        rows.push({
          skillId: release.skillId,
          version: release.version,
          path: f.path,
          chunk,
          charStart: all.slice(0, chunk).reduce((n, c) => n + c.length, 0),
          bytes: f.bytes,
          totalChars: f.content.length,
          content,
        }),
      );
    }
    for (let i = 0; i < rows.length; i += CHUNKS_PER_INSERT)
      await m.getRepository(SkillFileEntity).insert(rows.slice(i, i + CHUNKS_PER_INSERT));
  }

  /** Makes `release` current: the skill takes its name, description and version. */
  async publish(m: EntityManager, release: SkillReleaseEntity, now: number): Promise<void> {
    await m
      .getRepository(SkillReleaseEntity)
      .update({ skillId: release.skillId, version: release.version }, { publishedAt: now });
    await m
      .getRepository(SkillEntity)
      .update(
        { id: release.skillId },
        { currentVersion: release.version, description: release.description, updatedAt: now },
      );
  }

  /** Locks the skill's row until the transaction ends (MySQL; SQLite runs one at a time); false when it is gone. */
  async lockSkill(m: EntityManager, skillId: string): Promise<boolean> {
    const res = await m.getRepository(SkillEntity).update({ id: skillId }, { updatedAt: Date.now() });
    return (res.affected ?? 0) === 1;
  }

  async deleteSkill(m: EntityManager, skillId: string): Promise<void> {
    await m.getRepository(SkillFileEntity).delete({ skillId });
    await m.getRepository(SkillReleaseEntity).delete({ skillId });
    await m.getRepository(SkillEntity).delete({ id: skillId });
  }

  /** The files of a release in path order (byte order on every database; first chunks only). */
  async fileIndex(skillId: string, version: number): Promise<SkillFileInfo[]> {
    const rows = await this.dataSource.getRepository(SkillFileEntity).find({
      select: { path: true, bytes: true, totalChars: true },
      where: { skillId, version, chunk: 0 },
    });
    return rows
      .map((r) => ({ path: r.path, bytes: r.bytes, totalChars: r.totalChars }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async fileInfo(skillId: string, version: number, path: string): Promise<SkillFileInfo | null> {
    const row = await this.dataSource.getRepository(SkillFileEntity).findOne({
      select: { path: true, bytes: true, totalChars: true },
      where: { skillId, version, path, chunk: 0 },
    });
    return row && { path: row.path, bytes: row.bytes, totalChars: row.totalChars };
  }

  /** Characters `[offset, offset + limit)` of a file, loading only the chunks that hold them. */
  async fileSlice(skillId: string, version: number, path: string, offset: number, limit: number): Promise<string> {
    if (limit <= 0) return '';
    const rows = await this.dataSource.getRepository(SkillFileEntity).find({
      select: { charStart: true, content: true },
      where: { skillId, version, path, charStart: Between(offset - SKILL_FILE_CHUNK_CHARS + 1, offset + limit - 1) },
      order: { chunk: 'ASC' },
    });
    if (rows.length === 0) return '';
    const text = rows.map((r) => r.content).join('');
    const start = offset - rows[0].charStart;
    return text.slice(start, start + limit);
  }

  /** The whole text of one file (the materializer writes releases file by file). */
  async fileText(skillId: string, version: number, path: string): Promise<string> {
    const rows = await this.dataSource.getRepository(SkillFileEntity).find({
      select: { chunk: true, content: true },
      where: { skillId, version, path },
      order: { chunk: 'ASC' },
    });
    return rows.map((r) => r.content).join('');
  }
}

/** Cuts a text into chunks of at most SKILL_FILE_CHUNK_CHARS, never between the two halves of a surrogate pair. */
function chunksOf(text: string): string[] {
  const chunks = wholeCharChunks(text, SKILL_FILE_CHUNK_CHARS);
  return chunks.length > 0 ? chunks : ['']; // an empty file is one empty chunk
}
