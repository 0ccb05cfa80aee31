import { Injectable } from '@nestjs/common';
import type { AuthContext } from '@app/common/auth/auth-context';
import { DomainError } from '@app/common/errors/domain-error';
import { SessionsService } from '@app/modules/loop-acting/sessions/sessions.service';
import { WorkspaceErrorCode } from './workspace.errors';
import { WorkspaceLocator } from './workspace.locator';

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
        `Session ${sessionId} is closed; its workspace was removed.`,
      );
    return this.forCall(session.tenantId, session.id);
  }

  /** The workspace of a session the call path has already checked (act/resume). */
  async forCall(tenantId: string, sessionId: string): Promise<WorkspaceOwner> {
    return { tenantId, sessionId, dir: await this.locator.ensure(tenantId, sessionId) };
  }
}
