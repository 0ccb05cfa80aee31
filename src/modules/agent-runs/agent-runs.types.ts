import type { HitlRequestView } from '@app/modules/loop-acting/sessions/session.types';

export const RUN_STATUSES = ['QUEUED', 'RUNNING', 'COMPLETED', 'INTERRUPTED', 'PAUSED', 'FAILED'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Statuses a run stops in (for now: INTERRUPTED and PAUSED continue after a decision). */
export const STOPPED_RUN_STATUSES: readonly RunStatus[] = ['COMPLETED', 'INTERRUPTED', 'PAUSED', 'FAILED'];
/** Statuses that keep the session's conversation busy: a new message is refused (RUN_IN_PROGRESS). */
export const ACTIVE_RUN_STATUSES: readonly RunStatus[] = ['QUEUED', 'RUNNING', 'INTERRUPTED', 'PAUSED'];

/**
 * A tool call of the model's last answer, waiting for `act`: `id` is the model's (what the `role: tool` message
 * answers), `key` the journal key (the same id, qualified when the model repeated one within the session).
 */
export interface PendingToolCall {
  id: string;
  key: string;
  name: string;
  arguments: string;
  /** The model's answer was cut at its token limit before these arguments were complete: the call does not run. */
  truncated?: true;
  /** The provider's `extra_content` of the call (Gemini's thought signature), sent back with it; shown to no client. */
  extraContent?: Record<string, unknown>;
}

export const MESSAGE_ROLES = ['user', 'assistant', 'tool'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

/** One message of a session's conversation, as stored. */
export interface ConversationMessage {
  seq: number;
  runId: string;
  role: MessageRole;
  content: string | null;
  toolCalls: PendingToolCall[] | null;
  /** The model's reasoning beside its tool calls (`reasoning_content`), sent back with them. */
  reasoning?: string | null;
  toolCallId: string | null;
  createdAt: number;
}

/** What `wait: true` and `GET .../runs/{runId}` answer. */
export interface RunView {
  runId: string;
  status: RunStatus;
  answer?: string;
  error?: string;
  /** Why the final answer ended, when not as the model meant it (`length`: cut at the token limit). */
  finishReason?: string;
  hitlRequest?: HitlRequestView;
  iterations: number;
}
