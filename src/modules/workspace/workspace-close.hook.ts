import { Injectable, OnModuleInit } from '@nestjs/common';
import { SessionCloseHooks } from '@app/modules/loop-acting/sessions/session-close.hooks';
import { WorkspaceLocator } from './workspace.locator';

/** DELETE /sessions/{id} removes the session's workspace (its artifacts stay). */
@Injectable()
export class WorkspaceCloseHook implements OnModuleInit {
  constructor(
    private readonly hooks: SessionCloseHooks,
    private readonly locator: WorkspaceLocator,
  ) {}

  onModuleInit(): void {
    this.hooks.register('workspace', async (session) => {
      await this.locator.remove(session.tenantId, session.id);
    });
  }
}
