import { Injectable } from '@nestjs/common';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { validationFailed } from '@app/common/errors/validation';
import type { AuthContext } from '@app/common/auth/auth-context';
import { AgentConfigService } from '@app/modules/agent-config/agent-config.service';
import type { AgentDto } from '@app/modules/agent-config/agent-config.dto';
import { SkillsRepository } from './skills.repository';

/** Binds skills to agents: the agent's own tenant's skills or official ones, each with a published release. */
@Injectable()
export class AgentSkillsService {
  constructor(
    private readonly agents: AgentConfigService,
    private readonly repo: SkillsRepository,
  ) {}

  async replace(auth: AuthContext, agentId: string, skillIds: string[]): Promise<AgentDto> {
    const agent = await this.agents.loadAgent(auth, agentId);
    const unique = [...new Set(skillIds)];
    const found = new Map((await this.repo.findSkills(unique)).map((s) => [s.id, s]));
    for (const id of unique) {
      const skill = found.get(id);
      if (!skill || (skill.tenantId !== null && skill.tenantId !== agent.tenantId))
        throw new DomainError(
          CommonErrorCode.NOT_FOUND,
          `No skill ${id} in tenant ${agent.tenantId} or official; list skills with GET /api/v1/admin/skills.`,
          { skillId: id },
        );
      if (skill.currentVersion === null)
        throw validationFailed([
          { field: 'skillIds', problems: [`skill ${skill.name} has no published release; publish one first`] },
        ]);
    }
    return this.agents.setSkillIds(auth, agentId, unique);
  }
}
