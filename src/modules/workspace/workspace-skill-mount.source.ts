import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { SessionsService } from '@app/modules/loop-acting/sessions/sessions.service';
import { SkillReleaseMaterializer } from '@app/modules/skills/skill-release.materializer';
import { ActiveSkillBinding } from '@app/modules/skills/skill-call/active-skill.binding';
import { WorkspaceMountSources } from './workspace-mount.sources';

/**
 * The session's active skill (SKILL_CALL activates one) read-only at `/skills/<name>` for RUN_COMMAND: exactly the
 * activated release, unpacked once by {@link SkillReleaseMaterializer} (read-only on disk, shared by instances).
 * A skill the agent no longer has bound is not mounted ({@link ActiveSkillBinding}).
 */
@Injectable()
export class WorkspaceSkillMountSource implements OnModuleInit {
  private readonly logger = new Logger(WorkspaceSkillMountSource.name);

  constructor(
    private readonly mounts: WorkspaceMountSources,
    private readonly sessions: SessionsService,
    private readonly releases: SkillReleaseMaterializer,
    private readonly binding: ActiveSkillBinding,
  ) {}

  onModuleInit(): void {
    this.mounts.register(async (owner) => {
      const skill = await this.binding.of(await this.sessions.load({ tenantId: owner.tenantId }, owner.sessionId));
      if (!skill) return [];
      // By id: another skill of the same name (the tenant's own beside a bound official one) is never mounted instead.
      const hostPath = await this.releases
        .materialize({
          tenantId: owner.tenantId,
          ...(skill.skillId ? { skillId: skill.skillId } : { name: skill.name }),
          version: skill.version,
        })
        .catch((err: unknown) => {
          if (!(err instanceof DomainError) || err.code !== CommonErrorCode.NOT_FOUND) throw err;
          // Deleted since it was activated: commands still run, without it.
          this.logger.warn(`Session ${owner.sessionId}: active skill ${skill.name} is gone; /skills not mounted`);
          return null;
        });
      return hostPath ? [{ hostPath, sandboxPath: `/skills/${skill.name}` }] : [];
    });
  }
}
