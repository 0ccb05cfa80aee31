import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { In, type DataSource } from 'typeorm';
import { ArtifactEntity } from './artifact.entity';
import { WorkspaceLocator } from './workspace.locator';

/**
 * How old a file must be before a missing row makes it an orphan: a publish renames its file into place a moment
 * before its row commits (after up to 10 s waiting for the tenant's quota lock), so a young file may have a row on
 * the way. A day leaves room for any commit and for clocks that disagree.
 */
export const ORPHAN_GRACE_MS = 24 * 60 * 60 * 1000;
/** Artifact files are named by their row's id. */
const ARTIFACT_FILE_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Ids looked up per statement. */
const IDS_PER_LOOKUP = 500;

/** What one {@link ArtifactOrphanSweeper.sweep} removed. */
export interface OrphanSweepReport {
  /** Files in the artifact folders that no `artifact` row names. */
  artifactFiles: number;
  /** Files left in the staging folder by uploads and publishes a crash cut short. */
  stagedFiles: number;
}

/**
 * Removes what a crash leaves in WORKSPACE_ROOT that no row will ever name: an artifact file whose publish died
 * between the file and its row (or whose delete died between the row and the file), and staged uploads and copies
 * that were never renamed into place. Only files named as the gateway names them and older than
 * {@link ORPHAN_GRACE_MS}; rows are looked up by id in batches, so a folder of many artifacts costs a few primary-key
 * reads. Run by the retention job. WORKSPACE_ROOT belongs to the gateways of one database: a gateway on another
 * database sharing it would see that one's artifacts as orphans.
 */
@Injectable()
export class ArtifactOrphanSweeper {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly locator: WorkspaceLocator,
  ) {}

  async sweep(now: number = Date.now()): Promise<OrphanSweepReport> {
    return { artifactFiles: await this.sweepArtifacts(now), stagedFiles: await this.sweepStaging(now) };
  }

  private async sweepArtifacts(now: number): Promise<number> {
    const root = join(this.locator.root, 'artifacts');
    let removed = 0;
    for (const tenantDir of await entriesOf(root)) {
      const dir = join(root, tenantDir);
      const names = (await entriesOf(dir)).filter((name) => ARTIFACT_FILE_NAME.test(name));
      for (let i = 0; i < names.length; i += IDS_PER_LOOKUP) {
        const batch = names.slice(i, i + IDS_PER_LOOKUP);
        const known = new Set(
          (
            await this.dataSource.getRepository(ArtifactEntity).find({ select: { id: true }, where: { id: In(batch) } })
          ).map((row) => row.id),
        );
        for (const name of batch.filter((n) => !known.has(n))) if (await removeIfOlder(join(dir, name), now)) removed++;
      }
    }
    return removed;
  }

  private async sweepStaging(now: number): Promise<number> {
    const dir = this.locator.stagingDir();
    let removed = 0;
    for (const name of await entriesOf(dir)) if (await removeIfOlder(join(dir, name), now)) removed++;
    return removed;
  }
}

async function entriesOf(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => [] as string[]);
}

/** Removes a regular file last changed more than the grace ago (never a folder or a link). */
async function removeIfOlder(path: string, now: number): Promise<boolean> {
  const info = await lstat(path).catch(() => null);
  if (!info?.isFile() || now - info.mtimeMs < ORPHAN_GRACE_MS) return false;
  await rm(path, { force: true });
  return true;
}
