import { Injectable } from '@nestjs/common';
import { AgentConfigService } from '@app/modules/agent-config/agent-config.service';
import type { AgentSessionEntity } from '@app/modules/loop-acting/sessions/agent-session.entity';
import type { ActiveSkill } from '@app/modules/loop-acting/sessions/session.types';

/**
 * The session's active skill while its agent still has it bound. An admin may unbind a skill mid-session, as a
 * tool: from then on it is neither mounted for RUN_COMMAND nor named in the reminders (SKILL_CALL refuses it too).
 */
@Injectable()
export class ActiveSkillBinding {
  constructor(private readonly agents: AgentConfigService) {}

  async of(session: Pick<AgentSessionEntity, 'tenantId' | 'agentId' | 'activeSkill'>): Promise<ActiveSkill | null> {
    const skill = session.activeSkill;
    // Activated before skills were recorded by id: kept as it was (found by name where it is used).
    if (!skill?.skillId) return skill ?? null;
    const agent = await this.agents.loadAgent({ tenantId: session.tenantId }, session.agentId).catch(() => null);
    return agent?.skillIds?.includes(skill.skillId) ? skill : null;
  }
}
