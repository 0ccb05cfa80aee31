import type { AgentSessionEntity } from '../sessions/agent-session.entity';
import type { HitlRequestType, SubmittedCall } from '../sessions/session.types';
import type { ActResponse, ActResult } from './act.types';
import type { HotTransaction } from '@app/database/hot-sql';
import type { RiskMatch } from '@app/modules/risk/risk.types';
import type { LogFields } from '@app/common/logging/log-context';

/** The session-side facts every call of a batch runs with. */
export interface BatchContext {
  session: AgentSessionEntity;
  iteration: number;
  entry: 'ACT' | 'RESUME';
  /** The agent run whose loop acts (the gateway's own loop); absent for a runtime's act and a resume. */
  runId?: string;
  /** The log fields of the request (or run) that acts: its calls' lines carry them. */
  log?: LogFields;
  /** When the request arrived (performance.now()): the visibility re-check of its calls is at least this fresh. */
  freshSince: number;
  /**
   * The client's signal (aborted when it disconnects). Then no further call of the batch is started; a READ_ONLY
   * or IDEMPOTENT call in flight is cancelled and its claim released (it may run again); a SIDE_EFFECT or HIGH_RISK
   * call in flight is not cut off: it finishes under its own budget and its outcome is journaled.
   */
  signal?: AbortSignal;
  /**
   * A higher iteration the act accepted and has not written yet: the batch's first claim writes it in the same
   * transaction as STARTED (one commit instead of two); BatchRunner writes it alone when no call claimed.
   */
  iterationToRecord?: number;
  /**
   * A resume's: stores its response when the batch stops at another request, in the transaction that moves the
   * session to INTERRUPTED (a crash keeps both or neither). An act stores no response and leaves it out.
   */
  storeResponse?: (response: ActResponse, tx: HotTransaction) => Promise<void>;
}

/** A human's decision that lets exactly one call (by toolCallId and fingerprint) through. */
export interface ApprovalGrant {
  toolCallId: string;
  fingerprint: string;
  /**
   * The tool the reviewed call was made to: the approval lets the call through to that tool only, not to another that
   * took its name since (null: not known, a batch persisted before it was kept).
   */
  toolId: string | null;
  /** APPROVE: skip the approval check. RETRY: also take over an UNKNOWN_OUTCOME entry and run it again. */
  mode: 'APPROVE' | 'RETRY';
}

/** Why a batch stops for a human. */
export interface InterruptSpec {
  requestType: HitlRequestType;
  call: SubmittedCall | null;
  toolName: string | null;
  /** The registry id of the tool the call was made to (null: none known, or a checkpoint pause). */
  toolId: string | null;
  fingerprint: string | null;
  /** Arguments for the reviewer (redacted before display). */
  args: unknown;
  redactFields: readonly string[];
  triggerReason: string;
  promptMessage: string;
  rules: RiskMatch[];
}

/** What one call of a batch came to; `sessionClosed`: the session was closed before the call could be claimed (not run). */
export type CallStep =
  { kind: 'result'; result: ActResult } | { kind: 'interrupt'; interrupt: InterruptSpec } | { kind: 'sessionClosed' };
