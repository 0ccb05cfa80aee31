import { Injectable } from '@nestjs/common';
import type { SandboxMount } from '@app/modules/sandbox/sandbox.types';
import type { WorkspaceOwner } from './workspace-sessions.service';

/** Gives the read-only mounts (under /skills/) a session's commands should see, e.g. its active skill's release. */
export type WorkspaceMountSource = (owner: WorkspaceOwner) => Promise<SandboxMount[]>;

/**
 * Where RUN_COMMAND's read-only mounts come from. The skills module registers a source in its `onModuleInit`
 * (the active skill's release, materialized, at `/skills/<name>`), so the workspace module imports none of it.
 */
@Injectable()
export class WorkspaceMountSources {
  private readonly sources: WorkspaceMountSource[] = [];

  register(source: WorkspaceMountSource): void {
    this.sources.push(source);
  }

  async mountsFor(owner: WorkspaceOwner): Promise<SandboxMount[]> {
    return (await Promise.all(this.sources.map((source) => source(owner)))).flat();
  }
}
