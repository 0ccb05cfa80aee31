import { Injectable } from '@nestjs/common';
import type { AuthContext } from '@app/common/auth/auth-context';
import { DomainError } from '@app/common/errors/domain-error';
import { SessionsService } from '@app/modules/loop-acting/sessions/sessions.service';
import { WorkspaceErrorCode } from './workspace.errors';
import { WorkspaceLocator } from './workspace.locator';
import { WorkspaceGate } from './workspace.gate';
import { workspaceGone } from './workspace-path.resolver';

/** The session a workspace belongs to, as the file API and the built-ins see it. */
export interface WorkspaceOwner {
  tenantId: string;
  sessionId: string;
  dir: string;
}

/** Which sessions have a workspace: those created with FILE_ROOM or SANDBOX, until they are closed. */
@Injectable()
export class WorkspaceSessions {
  constructor(
    private readonly sessions: SessionsService,
    private readonly locator: WorkspaceLocator,
    private readonly gate: WorkspaceGate,
  ) {}

  /** The caller's session's workspace (created on first use); 404 for another tenant's, 409 without one. */
  async open(auth: Pick<AuthContext, 'tenantId'>, sessionId: string): Promise<WorkspaceOwner> {
    const session = await this.sessions.load(auth, sessionId);
    if (!session.capabilities.some((c) => c === 'FILE_ROOM' || c === 'SANDBOX'))
      throw new DomainError(
        WorkspaceErrorCode.WORKSPACE_UNAVAILABLE,
        `Session ${sessionId} has no workspace: create the session with capabilities ["FILE_ROOM"] (or SANDBOX).`,
      );
    if (session.status === 'CLOSED')
      throw new DomainError(
        WorkspaceErrorCode.WORKSPACE_UNAVAILABLE,
        `Session ${sessionId} is closed; its workspace was removed. Create a new session with POST /api/v1/sessions (capabilities ["FILE_ROOM"]) for a new workspace.`,
      );
    return this.forCall(session.tenantId, session.id);
  }

  /**
   * The workspace of a session the call path has already checked (act/resume), created on first use. Not made again
   * once the session's close removed it: a call claimed before the close and run after it (a batch finishes the call it
   * is in) would bring it back until retention. A missing folder is made within the workspace's gate, which the close's
   * removal takes alone (see WorkspaceCloseHook), and only if the session is not closed (read only then). An existing
   * one is used as it is: removed meanwhile, the call finds it gone (nothing but this makes it again).
   */
  async forCall(tenantId: string, sessionId: string): Promise<WorkspaceOwner> {
    const dir = this.locator.dirOf(tenantId, sessionId);
    if (!(await this.locator.exists(tenantId, sessionId)))
      await this.gate.run(dir, 'files', async () => {
        if (await this.locator.exists(tenantId, sessionId)) return;
        if ((await this.sessions.load({ tenantId }, sessionId)).status === 'CLOSED') throw workspaceGone();
        await this.locator.ensure(tenantId, sessionId);
      });
    return { tenantId, sessionId, dir };
  }
}
