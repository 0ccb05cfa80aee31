/** The event types of the contract ("v2: sessions, events, retention"). */
export const SESSION_EVENT_TYPES = [
  'tool.started',
  'tool.completed',
  'tool.failed',
  'hitl.requested',
  'hitl.decided',
  'todo.updated',
  'skill.activated',
  'file.written',
  'file.deleted',
  'command.started',
  'command.finished',
  'artifact.published',
  'task.submitted',
  'task.finished',
  'message',
  'run.finished',
] as const;
export type SessionEventType = (typeof SESSION_EVENT_TYPES)[number];

/** What a writer records; the store assigns `seq` and `at`. */
export interface NewSessionEvent {
  tenantId: string;
  sessionId: string;
  type: SessionEventType;
  /** Small and already redacted: events are shown to runtimes as they are. */
  data: Record<string, unknown>;
  /**
   * For an event the session must have exactly once whichever path records it (`hitl.decided:<requestId>`: the
   * resume that saved the decision, or whoever carries it out after that one died): recorded again, it is not
   * written a second time.
   */
  onceKey?: string;
}

/** One event as the API answers it. */
export interface SessionEventView {
  seq: number;
  type: SessionEventType;
  at: string;
  data: Record<string, unknown>;
}

export interface SessionEventPage {
  items: SessionEventView[];
  /** Pass as `after` to read on (the last seq returned, or `after` itself when nothing came). */
  nextAfter: number;
}
