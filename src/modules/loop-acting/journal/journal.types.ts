import type { JournalState } from './tool-call-journal.entity';

/** The key of a journal entry. */
export interface JournalKey {
  tenantId: string;
  sessionId: string;
  toolCallId: string;
}

/**
 * One attempt's hold on a STARTED entry: `owner` is the claim token written with the claim (this instance's id and a
 * number of its own per claim), so a stalled attempt can never finish, release or renew an entry taken over since,
 * even by the same instance.
 */
export interface JournalClaim extends JournalKey {
  owner: string;
}

/** A journal row as the acting step reads it. */
export interface JournalEntry extends JournalKey {
  toolName: string;
  toolId: string | null;
  fingerprint: string;
  argumentsJson: string;
  sideEffect: string;
  state: JournalState;
  resultStatus: string | null;
  attempts: number;
  iteration: number;
  owner: string;
  leaseExpiresAt: number;
  startedAt: number;
  finishedAt: number | null;
  durationMs: number | null;
  isError: boolean;
  errorClass: string | null;
  content: string | null;
  totalChars: number;
  resultChunks: number;
  inlineLimit: number;
}

/** What the admin journal list shows of an entry (no arguments, no result). */
export const JOURNAL_LIST_FIELDS = [
  'toolCallId',
  'toolName',
  'state',
  'resultStatus',
  'attempts',
  'iteration',
  'startedAt',
  'finishedAt',
  'owner',
  'leaseExpiresAt',
  'totalChars',
  'errorClass',
] as const satisfies ReadonlyArray<keyof JournalEntry>;
export type JournalListEntry = Pick<JournalEntry, (typeof JOURNAL_LIST_FIELDS)[number]>;

/** How a call ended, written with its result in one step. */
export interface JournalOutcome {
  state: 'COMPLETED' | 'FAILED';
  resultStatus: 'COMPLETED' | 'FAILED' | 'REJECTED';
  attempts: number;
  durationMs: number;
  isError: boolean;
  errorClass: string | null;
  content: string;
}

/** Characters per stored chunk: 16,000 utf8mb4 characters fit MySQL's 64 KB TEXT. */
export const RESULT_CHUNK_CHARS = 16_000;
