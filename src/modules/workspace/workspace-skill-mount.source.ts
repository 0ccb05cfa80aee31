import { Injectable, OnModuleInit } from '@nestjs/common';
import { SessionsService } from '@app/modules/loop-acting/sessions/sessions.service';
import { SkillReleaseMaterializer } from '@app/modules/skills/skill-release.materializer';
import { WorkspaceMountSources } from './workspace-mount.sources';

/**
 * The session's active skill (SKILL_CALL activates one) read-only at `/skills/<name>` for RUN_COMMAND: exactly the
 * activated release, unpacked once by {@link SkillReleaseMaterializer} (read-only on disk, shared by instances).
 */
@Injectable()
export class WorkspaceSkillMountSource implements OnModuleInit {
  constructor(
    private readonly mounts: WorkspaceMountSources,
    private readonly sessions: SessionsService,
    private readonly releases: SkillReleaseMaterializer,
  ) {}

  onModuleInit(): void {
    this.mounts.register(async (owner) => {
      const skill = (await this.sessions.load({ tenantId: owner.tenantId }, owner.sessionId)).activeSkill;
      if (!skill) return [];
      const hostPath = await this.releases.materialize({
        tenantId: owner.tenantId,
        name: skill.name,
        version: skill.version,
      });
      return [{ hostPath, sandboxPath: `/skills/${skill.name}` }];
    });
  }
}
