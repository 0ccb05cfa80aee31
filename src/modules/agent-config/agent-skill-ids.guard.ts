import { Injectable } from '@nestjs/common';

/** Throws (404 / 400) when an agent of `tenantId` may not have these skills; provided by the Skills module. */
export type AgentSkillIdsCheck = (tenantId: string, skillIds: string[]) => Promise<void>;

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

  async assert(tenantId: string, skillIds: string[] | undefined): Promise<void> {
    if (skillIds === undefined || skillIds.length === 0) return;
    if (!this.check) throw new Error('No skill check installed: the Skills module is not loaded');
    await this.check(tenantId, skillIds);
  }
}
