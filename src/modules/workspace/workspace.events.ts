import { Injectable } from '@nestjs/common';
import { SessionEventsStore } from '@app/modules/session-events/session-events.store';
import type { WorkspaceOwner } from './workspace-sessions.service';
import type { WorkspaceWrite } from './workspace-files.service';

/** Who changed a file: a built-in tool (by name) or the runtime's upload. */
export type WorkspaceActor = 'WRITE_FILE' | 'EDIT_FILE' | 'DELETE_FILE' | 'UPLOAD';

/** The session events of the workspace, appended by the code that did the work, right after it. */
@Injectable()
export class WorkspaceEvents {
  constructor(private readonly events: SessionEventsStore) {}

  fileWritten(owner: WorkspaceOwner, write: WorkspaceWrite, by: WorkspaceActor, toolCallId?: string): Promise<void> {
    return this.events.append({
      tenantId: owner.tenantId,
      sessionId: owner.sessionId,
      type: 'file.written',
      data: { path: write.path, bytes: write.bytes, created: write.created, by, ...(toolCallId ? { toolCallId } : {}) },
    });
  }

  fileDeleted(owner: WorkspaceOwner, path: string, type: string, toolCallId?: string): Promise<void> {
    return this.events.append({
      tenantId: owner.tenantId,
      sessionId: owner.sessionId,
      type: 'file.deleted',
      data: { path, type, by: 'DELETE_FILE', ...(toolCallId ? { toolCallId } : {}) },
    });
  }
}
