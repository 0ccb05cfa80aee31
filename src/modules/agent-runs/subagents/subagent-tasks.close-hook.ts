import { Injectable, OnModuleInit } from '@nestjs/common';
import type { AuthContext } from '@app/common/auth/auth-context';
import { SessionCloseHooks } from '@app/modules/loop-acting/sessions/session-close.hooks';
import { SessionsService } from '@app/modules/loop-acting/sessions/sessions.service';
import { AgentTasksRepository } from './agent-tasks.repository';

/**
 * DELETE /sessions/{id} closes the child sessions of the session's sub-agent tasks (and theirs, as each close runs
 * the hooks again): an unfinished one's run stops before its next model request instead of working, and paying, for
 * a parent that can no longer hear of them; a finished one's would otherwise stay ACTIVE for good, and retention
 * purges closed sessions only.
 */
@Injectable()
export class SubagentTasksCloseHook implements OnModuleInit {
  constructor(
    private readonly hooks: SessionCloseHooks,
    private readonly tasks: AgentTasksRepository,
    private readonly sessions: SessionsService,
  ) {}

  onModuleInit(): void {
    this.hooks.register('sub-agent tasks', async (parent) => {
      const auth = closedParentAuth(parent.tenantId, parent.id);
      for (const child of await this.tasks.unclosedChildSessions(parent.id)) await this.sessions.close(auth, child);
    });
  }

  /**
   * Finishes the closes a dying process left half done where a human is asked for nothing: a child session still
   * open under a closed parent, above a PENDING approval, is closed as the hooks would have closed it (and its own
   * children with it), so the request leaves the review queue. The child's run would see the closed parent only once
   * a decision woke it. @returns the sessions closed.
   */
  async closeAbandonedAboveApprovals(): Promise<number> {
    const left = await this.tasks.unclosedAboveApprovalsUnderClosed(ABANDONED_CLOSE_BATCH);
    for (const { tenantId, parentSessionId, childSessionId } of left)
      await this.sessions.close(closedParentAuth(tenantId, parentSessionId), childSessionId);
    return left.length;
  }
}

/** Child sessions one round of {@link SubagentTasksCloseHook.closeAbandonedAboveApprovals} closes at most. */
const ABANDONED_CLOSE_BATCH = 100;

/** Who closes the child sessions of a closed parent session (shown as the closer in their events). */
export function closedParentAuth(tenantId: string, parentSessionId: string): AuthContext {
  return { keyId: `parent session ${parentSessionId} closed`, role: 'runtime', tenantId };
}
