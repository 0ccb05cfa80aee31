import { Injectable, OnModuleInit } from '@nestjs/common';
import { SessionCloseHooks } from '@app/modules/loop-acting/sessions/session-close.hooks';
import { WorkspaceLocator } from './workspace.locator';
import { WorkspaceGate } from './workspace.gate';

/** DELETE /sessions/{id} removes the session's workspace (its artifacts stay). */
@Injectable()
export class WorkspaceCloseHook implements OnModuleInit {
  constructor(
    private readonly hooks: SessionCloseHooks,
    private readonly locator: WorkspaceLocator,
    private readonly gate: WorkspaceGate,
  ) {}

  onModuleInit(): void {
    this.hooks.register('workspace', async (session) => {
      // After a command or file tool still running in it (its removal must not race a symlink the command swaps in,
      // nor a write landing in it); a call that asks for the workspace after it finds the session closed.
      const dir = this.locator.dirOf(session.tenantId, session.id);
      await this.gate.run(dir, 'removal', () => this.locator.remove(session.tenantId, session.id));
    });
  }
}
