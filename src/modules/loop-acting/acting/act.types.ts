import type { HitlRequestView } from '../sessions/session.types';

export const ACT_RESULT_STATUSES = ['COMPLETED', 'FAILED', 'REJECTED', 'PENDING_APPROVAL', 'NOT_RUN'] as const;
export type ActResultStatus = (typeof ACT_RESULT_STATUSES)[number];

/** One entry of `results` (the contract's fields). */
export interface ActResult {
  toolCallId: string;
  toolName: string;
  status: ActResultStatus;
  content: string;
  isError: boolean;
  reused: boolean;
  attempts: number;
  durationMs: number;
  totalChars: number;
  truncated: boolean;
  /** The structured block's error class (null on success): TIMEOUT, HTTP_RETRYABLE, BAD_ARGUMENTS, REJECTED, ... */
  errorClass: string | null;
}

/** The response of `act` and `resume`. */
export interface ActResponse {
  status: 'COMPLETED' | 'INTERRUPTED';
  results: ActResult[];
  hitlRequest?: HitlRequestView;
}
