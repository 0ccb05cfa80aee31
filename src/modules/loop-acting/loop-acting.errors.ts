/** Error codes of sessions, acting and resume. */
export enum LoopActingErrorCode {
  /** The submitted iteration is lower than one the session already saw. */
  STALE_ITERATION = 'STALE_ITERATION',
  /** The toolCallId was used before with another tool or other arguments. */
  TOOL_CALL_CONFLICT = 'TOOL_CALL_CONFLICT',
  /** The toolCallId is being executed right now (by this or another instance). */
  TOOL_CALL_IN_PROGRESS = 'TOOL_CALL_IN_PROGRESS',
  /** The session waits for a human decision; resume it first. */
  SESSION_INTERRUPTED = 'SESSION_INTERRUPTED',
  /** The session was closed (e.g. a rejection with ABORT_SESSION). */
  SESSION_CLOSED = 'SESSION_CLOSED',
  /** `/resume` on a session that is not waiting for a decision. */
  NO_PENDING_REQUEST = 'NO_PENDING_REQUEST',
  /** `/resume` named a toolCallId that is not the pending one. */
  HITL_TOOL_CALL_MISMATCH = 'HITL_TOOL_CALL_MISMATCH',
  /** The pending request was already decided (by another clientMessageId). */
  HITL_ALREADY_DECIDED = 'HITL_ALREADY_DECIDED',
  /** A `/resume` with this clientMessageId is still running. */
  RESUME_IN_PROGRESS = 'RESUME_IN_PROGRESS',
  /** The agent's `hitlReviewer` is ADMIN: a runtime key may only continue a CHECKPOINT_PAUSE. */
  HITL_ADMIN_REVIEW_REQUIRED = 'HITL_ADMIN_REVIEW_REQUIRED',
}
