import type { ModelFormat } from '@app/modules/agent-config/formats/model-formats';

/** RUNNING: a run of the gateway's own loop works on the session (its runtime may still act). */
export const SESSION_STATUSES = ['ACTIVE', 'INTERRUPTED', 'CLOSED', 'RUNNING'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export const HITL_REQUEST_TYPES = ['TOOL_APPROVAL', 'UNKNOWN_OUTCOME', 'CHECKPOINT_PAUSE'] as const;
export type HitlRequestType = (typeof HITL_REQUEST_TYPES)[number];

/** The contract's `hitlRequest` (tool params shown redacted). */
export interface HitlRequestView {
  /** Id of the persisted request (admin queue). */
  id: string;
  requestType: HitlRequestType;
  promptMessage: string;
  toolName: string | null;
  toolCallId: string | null;
  toolParams: unknown;
  triggerReason: string;
  iteration: number;
}

/** One tool call as the runtime submitted it. */
export interface SubmittedCall {
  id: string;
  name: string;
  arguments: unknown;
  /** The act's `format` (kept with a batch that waits for a human): which spec the model read its tool from. */
  format?: ModelFormat;
  /**
   * Set on a call rebuilt from its journal entry (the dead-owner sweep): its arguments are those the entry stored,
   * already read as its format reads them (never read again), and this is the entry's fingerprint, of the arguments as
   * the runtime submitted them.
   */
  stored?: { fingerprint: string };
}

/** What an interrupted batch still has to do once a human has decided. */
export interface PendingBatch {
  iteration: number;
  /** The call the request is about (null for a checkpoint pause). */
  pending: SubmittedCall | null;
  /** The calls after it, left NOT_RUN, in order. */
  notRun: SubmittedCall[];
  /**
   * The registry id of the tool the pending call was made to (its name may be renamed, or taken by another tool,
   * before the decision). Null when no tool is known; absent in batches persisted before it was kept: found by name then.
   */
  pendingToolId?: string | null;
}

export interface TodoItem {
  id: string;
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
}

/** What the session is for: skills are matched against it (`skill` names one outright). */
export interface SessionTask {
  description: string;
  skill?: string;
}

export interface ActiveSkill {
  /** The skill activated (absent in sessions activated before it was recorded: found by name then). */
  skillId?: string;
  name: string;
  version?: number;
  root: string | null;
  entryPath: string | null;
}
