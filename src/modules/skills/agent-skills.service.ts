import { Injectable, OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { validationFailed } from '@app/common/errors/validation';
import { AgentSkillIdsGuard } from '@app/modules/agent-config/agent-skill-ids.guard';
import { SkillsRepository } from './skills.repository';

/**
 * What an agent may bind (installed as the agent-config module's skill check, so create, PATCH and
 * PUT .../skills all pass it): skills of the agent's own tenant or official ones, each with a published release.
 */
@Injectable()
export class AgentSkillsService implements OnModuleInit {
  constructor(
    private readonly guard: AgentSkillIdsGuard,
    private readonly repo: SkillsRepository,
  ) {}

  onModuleInit(): void {
    this.guard.use((m, tenantId, skillIds) => this.assertBindable(m, tenantId, skillIds));
  }

  /** Checked in the agent's write transaction `m`, the skills found held there until it ends (see findSkills). */
  async assertBindable(m: EntityManager, tenantId: string, skillIds: string[]): Promise<void> {
    const unique = [...new Set(skillIds)];
    const found = new Map((await this.repo.findSkills(unique, m)).map((s) => [s.id, s]));
    for (const id of unique) {
      const skill = found.get(id);
      if (!skill || (skill.tenantId !== null && skill.tenantId !== tenantId))
        throw new DomainError(
          CommonErrorCode.NOT_FOUND,
          `No skill ${id} in tenant ${tenantId} or official; list skills with GET /api/v1/admin/skills.`,
          { skillId: id },
        );
      if (skill.currentVersion === null)
        throw validationFailed([
          { field: 'skillIds', problems: [`skill ${skill.name} has no published release; publish one first`] },
        ]);
    }
  }
}
