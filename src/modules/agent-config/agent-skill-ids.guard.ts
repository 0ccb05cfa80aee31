import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/**
 * Throws (404 / 400) when an agent of `tenantId` may not have these skills; provided by the Skills module. Runs in
 * the transaction `m` that writes the agent, holding the skills found until it ends (a skill deleted meanwhile is
 * either refused here or unbound by its deletion afterwards, never left dangling on the agent).
 */
export type AgentSkillIdsCheck = (m: EntityManager, tenantId: string, skillIds: string[]) => Promise<void>;

/**
 * Every write of an agent's `skillIds` (create, PATCH, PUT .../skills) passes this check: a tenant binds its own
 * skills and official ones, never another tenant's. The Skills module installs the check at start-up.
 */
@Injectable()
export class AgentSkillIdsGuard {
  private check: AgentSkillIdsCheck | null = null;

  use(check: AgentSkillIdsCheck): void {
    this.check = check;
  }

  async assert(m: EntityManager, tenantId: string, skillIds: string[] | undefined): Promise<void> {
    if (skillIds === undefined || skillIds.length === 0) return;
    if (!this.check) throw new Error('No skill check installed: the Skills module is not loaded');
    await this.check(m, tenantId, skillIds);
  }
}
