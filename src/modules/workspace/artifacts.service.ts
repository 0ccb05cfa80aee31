import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { WorkspaceErrorCode } from './workspace.errors';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash, randomUUID } from 'node:crypto';
import { chmod, mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { basename, join } from 'node:path';
import { In, LessThan, type DataSource, type EntityManager } from 'typeorm';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { LONE_SURROGATE } from '@app/common/text/lone-surrogate';
import { toIso } from '@app/database/epoch-ms.transformer';
import { SessionEventsStore } from '@app/modules/session-events/session-events.store';
import { ArtifactEntity } from './artifact.entity';
import { WorkspaceLocator } from './workspace.locator';
import { WorkspaceFiles } from './workspace-files.service';
import { WorkspacePathResolver } from './workspace-path.resolver';
import { FileCutShortError, readExactly } from './workspace-file-length.stream';

/** An artifact as the API and PUBLISH_FILE answer it. */
export interface ArtifactView {
  artifactId: string;
  sessionId: string;
  name: string;
  title: string | null;
  path: string;
  size: number;
  sha256: string;
  createdAt: string;
}

/** How long a publish waits for the tenant's other publishes (MySQL's named lock), in seconds. */
const QUOTA_LOCK_WAIT_S = 10;

/**
 * PUBLISH_FILE and the artifact API: a workspace file becomes an immutable copy (staged, hashed, renamed to
 * `<root>/artifacts/<tenant>/<id>`, made read-only) described by an `artifact` row; its `artifact.published` event
 * is queued in the row's transaction and written when it commits (never for a row rolled back). Artifacts outlive
 * their session's workspace; a tenant's hold at most ARTIFACTS_MAX_BYTES in all (checked in the publishing transaction,
 * one publish of a tenant at a time), and its admins delete old ones.
 */
@Injectable()
export class ArtifactsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly locator: WorkspaceLocator,
    private readonly files: WorkspaceFiles,
    private readonly events: SessionEventsStore,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async publish(
    owner: { tenantId: string; sessionId: string },
    workspaceDir: string,
    path: unknown,
    title: string | null,
  ): Promise<ArtifactView> {
    // Stored, half a character became U+FFFD (three on SQLite, one on MySQL): the title read back was another text.
    if (title !== null && LONE_SURROGATE.test(title))
      throw new DomainError(
        CommonErrorCode.VALIDATION_FAILED,
        'title holds half of a character (a lone UTF-16 surrogate such as \\ud83d without its pair, e.g. an emoji cut in two), which cannot be stored; give whole characters.',
      );
    const source = await WorkspacePathResolver.existing(workspaceDir, path, this.config.workspace.maxFiles);
    const staged = await this.locator.stagingFile();
    // Streamed and hashed on the way: a file of any size a command wrote, never read into memory whole.
    const { size, sha256 } = await this.files.copyOut(source, staged, 0o440);
    const row: ArtifactEntity = {
      id: randomUUID(),
      tenantId: owner.tenantId,
      sessionId: owner.sessionId,
      name: basename(source.relative),
      sourcePath: source.relative,
      title,
      size,
      sha256,
      createdAt: Date.now(),
    };
    const dir = this.locator.artifactDir(owner.tenantId);
    const stored = join(dir, row.id);
    try {
      await mkdir(dir, { recursive: true, mode: 0o750 });
      await rename(staged, stored);
      await chmod(stored, 0o440);
      await this.withQuotaHeld(owner.tenantId, async (manager) => {
        // Inside the writing transaction, with the tenant's quota held (see withQuotaHeld).
        await this.assertRoom(owner.tenantId, row.size, manager);
        await manager.getRepository(ArtifactEntity).insert(row);
        await this.events.append(
          {
            tenantId: owner.tenantId,
            sessionId: owner.sessionId,
            type: 'artifact.published',
            data: { artifactId: row.id, name: row.name, path: row.sourcePath, size: row.size, sha256: row.sha256 },
          },
          manager,
        );
      });
    } catch (err) {
      await rm(staged, { force: true });
      await rm(stored, { force: true });
      throw err;
    }
    return toView(row);
  }

  /**
   * Deletes an artifact of the caller's tenant (the platform key: any tenant's): its row, then its file. Of deletes at
   * the same moment, the one whose statement removed the row answers; the others find it gone (404).
   */
  async remove(tenantId: string | null, id: string): Promise<ArtifactView> {
    const row = await this.load(tenantId, id);
    const { affected } = await this.dataSource.getRepository(ArtifactEntity).delete({ id: row.id });
    if (affected === 0) throw notFound(id);
    await rm(join(this.locator.artifactDir(row.tenantId), row.id), { force: true });
    return toView(row);
  }

  /**
   * Retention (ARTIFACTS_RETENTION_DAYS): deletes up to `limit` artifacts published before `cutoff`, oldest first,
   * whatever their tenant; rows before files, as {@link remove} does (a crash between leaves a file no row names,
   * never a row without its file; a download already streaming keeps its open file). Returns the rows deleted.
   */
  async removePublishedBefore(cutoff: number, limit: number): Promise<number> {
    const repo = this.dataSource.getRepository(ArtifactEntity);
    const due = await repo.find({
      select: { id: true, tenantId: true },
      where: { createdAt: LessThan(cutoff) },
      order: { createdAt: 'ASC' },
      take: limit,
    });
    if (due.length === 0) return 0;
    const { affected } = await repo.delete({ id: In(due.map((a) => a.id)) });
    await Promise.all(due.map((a) => rm(join(this.locator.artifactDir(a.tenantId), a.id), { force: true })));
    return affected ?? due.length;
  }

  /**
   * Runs `work` in a transaction no other publish of the tenant runs beside, so two publishes at once cannot both
   * pass the quota: on SQLite every transaction holds the database's write lock from its start (BEGIN IMMEDIATE); on
   * MySQL a named lock of the tenant (GET_LOCK, on the transaction's connection) is held until after the commit, so
   * the next publish's sum sees this one's row.
   */
  private async withQuotaHeld(tenantId: string, work: (manager: EntityManager) => Promise<void>): Promise<void> {
    const { artifactsMaxBytes, artifactsMaxCount } = this.config.workspace;
    if (this.dataSource.options.type === 'better-sqlite3' || (artifactsMaxBytes === 0 && artifactsMaxCount === 0))
      return this.dataSource.transaction(work);
    const runner = this.dataSource.createQueryRunner();
    // MySQL lock names are at most 64 characters; tenant ids may be 64 themselves.
    const lock = `gw-artifact-quota-${createHash('sha256').update(tenantId).digest('hex').slice(0, 40)}`;
    await runner.connect();
    try {
      const [got] = (await runner.query('SELECT GET_LOCK(?, ?) AS got', [lock, QUOTA_LOCK_WAIT_S])) as Array<{
        got: number | string | null;
      }>;
      if (Number(got?.got) !== 1)
        throw new DomainError(
          CommonErrorCode.CONCURRENT_MODIFICATION,
          `Other artifacts of tenant ${tenantId} were being published for more than ${QUOTA_LOCK_WAIT_S} s; publish again.`,
        );
      try {
        await runner.startTransaction();
        try {
          await work(runner.manager);
          await runner.commitTransaction();
        } catch (err) {
          if (runner.isTransactionActive) await runner.rollbackTransaction();
          throw err;
        }
      } finally {
        await runner.query('SELECT RELEASE_LOCK(?)', [lock]);
      }
    } finally {
      await runner.release();
    }
  }

  /**
   * Room for one more artifact of `bytes` under ARTIFACTS_MAX_BYTES and ARTIFACTS_MAX_COUNT (an empty file takes no
   * bytes, but a row and a file: without a count, a session could publish them without end).
   */
  private async assertRoom(tenantId: string, bytes: number, manager: EntityManager): Promise<void> {
    const { artifactsMaxBytes: max, artifactsMaxCount: maxCount } = this.config.workspace;
    if (max === 0 && maxCount === 0) return;
    const held = await manager
      .getRepository(ArtifactEntity)
      .createQueryBuilder('a')
      .select('COUNT(*)', 'count')
      .addSelect('SUM(a.size)', 'total')
      .where('a.tenant_id = :tenantId', { tenantId })
      .getRawOne<{ count: number | string; total: number | string | null }>();
    const count = Number(held?.count ?? 0);
    const total = Number(held?.total ?? 0);
    if (maxCount > 0 && count + 1 > maxCount)
      throw new DomainError(
        WorkspaceErrorCode.WORKSPACE_QUOTA_EXCEEDED,
        `Artifact quota exceeded: the tenant holds ${count} artifacts, as many as ARTIFACTS_MAX_COUNT (${maxCount}) allows, whatever their size (empty files count too); an admin deletes old artifacts with DELETE /api/v1/artifacts/{id}.`,
        { heldArtifacts: count, maxArtifacts: maxCount },
      );
    if (max > 0 && total + bytes > max)
      throw new DomainError(
        WorkspaceErrorCode.WORKSPACE_QUOTA_EXCEEDED,
        `Artifact quota exceeded: the tenant's artifacts hold ${total} bytes and this file has ${bytes}, more than ARTIFACTS_MAX_BYTES (${max}) in all; an admin deletes old artifacts with DELETE /api/v1/artifacts/{id}.`,
        { heldBytes: total, fileBytes: bytes, maxBytes: max },
      );
  }

  /** The artifact if it belongs to the caller's tenant (the platform key sees every tenant's). */
  async get(tenantId: string | null, id: string): Promise<ArtifactView> {
    return toView(await this.load(tenantId, id));
  }

  /**
   * The artifact and its bytes: exactly the `size` it was published with (see {@link readExactly}), so a stored file
   * found shorter is an error before the answer starts, or aborts it, never a body short of its Content-Length.
   */
  async content(tenantId: string | null, id: string): Promise<{ view: ArtifactView; stream: Readable }> {
    const row = await this.load(tenantId, id);
    let handle: FileHandle;
    try {
      handle = await open(join(this.locator.artifactDir(row.tenantId), row.id), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      // DELETE (an admin's or retention's) removes the row, then the file: this read came in between.
      throw new DomainError(
        CommonErrorCode.NOT_FOUND,
        `The file of artifact ${id} is gone: the artifact is being deleted (by an admin or ARTIFACTS_RETENTION_DAYS). Publish the file again with PUBLISH_FILE if it is still needed.`,
      );
    }
    try {
      return { view: toView(row), stream: await readExactly(handle, row.size, row.name) };
    } catch (err) {
      await handle.close();
      if (!(err instanceof FileCutShortError)) throw err;
      throw new DomainError(
        CommonErrorCode.INTERNAL,
        `The stored file of artifact ${id} holds ${err.readBytes} of the ${row.size} bytes it was published with: it is damaged. Publish the file again with PUBLISH_FILE.`,
      );
    }
  }

  private async load(tenantId: string | null, id: string): Promise<ArtifactEntity> {
    const row = await this.dataSource.getRepository(ArtifactEntity).findOneBy({ id });
    if (!row || (tenantId !== null && row.tenantId !== tenantId)) throw notFound(id);
    return row;
  }
}

function notFound(id: string): DomainError {
  return new DomainError(
    CommonErrorCode.NOT_FOUND,
    `No artifact ${id} in your tenant; use the artifactId that PUBLISH_FILE answered.`,
  );
}

function toView(row: ArtifactEntity): ArtifactView {
  return {
    artifactId: row.id,
    sessionId: row.sessionId,
    name: row.name,
    title: row.title,
    path: row.sourcePath,
    size: row.size,
    sha256: row.sha256,
    createdAt: toIso(row.createdAt)!,
  };
}
