import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { WorkspaceErrorCode } from './workspace.errors';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, type ReadStream } from 'node:fs';
import { chmod, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { DataSource } from 'typeorm';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { toIso } from '@app/database/epoch-ms.transformer';
import { SessionEventsStore } from '@app/modules/session-events/session-events.store';
import { ArtifactEntity } from './artifact.entity';
import { WorkspaceLocator } from './workspace.locator';
import { WorkspaceFiles } from './workspace-files.service';
import { WorkspacePathResolver } from './workspace-path.resolver';

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

/**
 * PUBLISH_FILE and the artifact API: a workspace file becomes an immutable copy (staged, hashed, renamed to
 * `<root>/artifacts/<tenant>/<id>`, made read-only) described by an `artifact` row; its `artifact.published` event
 * is queued in the row's transaction and written when it commits (never for a row rolled back). Artifacts outlive
 * their session's workspace; a tenant's hold at most ARTIFACTS_MAX_BYTES in all (checked at publish; two publishes at
 * the same moment may each pass it), and its admins delete old ones.
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
    const source = await WorkspacePathResolver.existing(workspaceDir, path);
    const bytes = await this.files.readWhole(source);
    await this.assertRoom(owner.tenantId, bytes.length);
    const row: ArtifactEntity = {
      id: randomUUID(),
      tenantId: owner.tenantId,
      sessionId: owner.sessionId,
      name: basename(source.relative),
      sourcePath: source.relative,
      title,
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      createdAt: Date.now(),
    };
    const staged = await this.locator.stagingFile();
    const dir = this.locator.artifactDir(owner.tenantId);
    const stored = join(dir, row.id);
    await writeFile(staged, bytes, { flag: 'wx', mode: 0o440 });
    try {
      await mkdir(dir, { recursive: true, mode: 0o750 });
      await rename(staged, stored);
      await chmod(stored, 0o440);
      await this.dataSource.transaction(async (manager) => {
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

  /** Deletes an artifact of the caller's tenant (the platform key: any tenant's): its row, then its file. */
  async remove(tenantId: string | null, id: string): Promise<ArtifactView> {
    const row = await this.load(tenantId, id);
    await this.dataSource.getRepository(ArtifactEntity).delete({ id: row.id });
    await rm(join(this.locator.artifactDir(row.tenantId), row.id), { force: true });
    return toView(row);
  }

  private async assertRoom(tenantId: string, bytes: number): Promise<void> {
    const max = this.config.workspace.artifactsMaxBytes;
    if (max === 0) return;
    const total = Number((await this.dataSource.getRepository(ArtifactEntity).sum('size', { tenantId })) ?? 0);
    if (total + bytes > max)
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

  async content(tenantId: string | null, id: string): Promise<{ view: ArtifactView; stream: ReadStream }> {
    const row = await this.load(tenantId, id);
    const stream = createReadStream(join(this.locator.artifactDir(row.tenantId), row.id));
    await new Promise<void>((resolve, reject) => stream.once('open', () => resolve()).once('error', reject));
    return { view: toView(row), stream };
  }

  private async load(tenantId: string | null, id: string): Promise<ArtifactEntity> {
    const row = await this.dataSource.getRepository(ArtifactEntity).findOneBy({ id });
    if (!row || (tenantId !== null && row.tenantId !== tenantId))
      throw new DomainError(CommonErrorCode.NOT_FOUND, `No artifact ${id} in your tenant.`);
    return row;
  }
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
