import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { removeTree } from './workspace-tree.remover';

/** Tenant ids are `[A-Za-z0-9_.-]{1,64}`; one that a file system could read as `.`/`..` or hide gets hashed. */
const SAFE_SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$/;

/**
 * Where things live under WORKSPACE_ROOT: `<root>/<tenantId>/<sessionId>` per session, `<root>/artifacts/<tenantId>`
 * for published files, `<root>/.staging` for uploads and copies in progress (same file system, so a finished file
 * is renamed into place atomically and a half-written one is never seen).
 */
@Injectable()
export class WorkspaceLocator {
  readonly root: string;

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    this.root = resolve(config.workspace.root);
  }

  /** The session's workspace folder (not created). */
  dirOf(tenantId: string, sessionId: string): string {
    return join(this.root, 'sessions', segment(tenantId), segment(sessionId));
  }

  /** The session's workspace folder, created when missing. */
  async ensure(tenantId: string, sessionId: string): Promise<string> {
    const dir = this.dirOf(tenantId, sessionId);
    await mkdir(dir, { recursive: true, mode: 0o750 });
    return dir;
  }

  /** Removes the session's workspace and everything in it (symlinks are removed, never followed); false if none. */
  async remove(tenantId: string, sessionId: string): Promise<boolean> {
    const existed = await this.exists(tenantId, sessionId);
    await removeTree(this.dirOf(tenantId, sessionId));
    return existed;
  }

  /** Whether the session's workspace folder is on disk. */
  exists(tenantId: string, sessionId: string): Promise<boolean> {
    return stat(this.dirOf(tenantId, sessionId)).then(
      () => true,
      () => false,
    );
  }

  artifactDir(tenantId: string): string {
    return join(this.root, 'artifacts', segment(tenantId));
  }

  /** The staging folder (not created). */
  stagingDir(): string {
    return join(this.root, '.staging');
  }

  /** A fresh path in the staging folder (created when missing). */
  async stagingFile(): Promise<string> {
    const dir = this.stagingDir();
    await mkdir(dir, { recursive: true, mode: 0o750 });
    return join(dir, randomUUID());
  }
}

function segment(id: string): string {
  return SAFE_SEGMENT.test(id) ? id : `h-${createHash('sha256').update(id).digest('hex').slice(0, 32)}`;
}
