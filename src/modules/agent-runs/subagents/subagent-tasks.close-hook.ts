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
}

/** Who closes the child sessions of a closed parent session (shown as the closer in their events). */
export function closedParentAuth(tenantId: string, parentSessionId: string): AuthContext {
  return { keyId: `parent session ${parentSessionId} closed`, role: 'runtime', tenantId };
}
