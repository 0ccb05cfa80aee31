import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';
import { jsonText } from '@app/database/json-column';
import { LargeText } from '@app/database/large-text.column';
import type { HitlRequestView } from '@app/modules/loop-acting/sessions/session.types';
import type { PendingToolCall, RunStatus } from './agent-runs.types';

/**
 * One run of the gateway's own loop: a row of the durable queue (claimed with a lease) and the run's checkpoint
 * (its position: the tool calls of the last model answer still to act on, the iterations so far).
 */
@Entity({ name: 'agent_run' })
@Index('uq_agent_run_session_message', ['sessionId', 'clientMessageId'], { unique: true })
@Index('idx_agent_run_status', ['status', 'leaseUntil'])
export class AgentRunEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  @Column({ name: 'session_id', type: 'varchar', length: 36 })
  sessionId: string;

  @Column({ name: 'agent_id', type: 'varchar', length: 36 })
  agentId: string;

  @Column({ name: 'client_message_id', type: 'varchar', length: 128 })
  clientMessageId: string;

  @Column({ type: 'varchar', length: 16 })
  status: RunStatus;

  /** Model rounds so far. */
  @Column({ type: 'int' })
  iterations: number;

  /** The `act` iteration of the pending tool calls (fixed at the checkpoint, so a retry submits the same). */
  @Column({ name: 'act_iteration', type: 'int' })
  actIteration: number;

  @LargeText()
  @Column({ name: 'pending_calls', type: 'text', nullable: true, transformer: jsonText })
  pendingCalls: PendingToolCall[] | null;

  @LargeText()
  @Column({ type: 'text', nullable: true })
  answer: string | null;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  /** Why the final answer ended, when not as the model meant it (`length`, `content_filter`...); see ModelAnswer. */
  @Column({ name: 'finish_reason', type: 'varchar', length: 64, nullable: true })
  finishReason: string | null;

  @Column({ name: 'hitl_request', type: 'simple-json', nullable: true })
  hitlRequest: HitlRequestView | null;

  /** The instance working on it (null when queued). */
  @Column({ type: 'varchar', length: 128, nullable: true })
  owner: string | null;

  @Column({ name: 'lease_until', type: 'bigint', transformer: epochMs })
  leaseUntil: number;

  /** A queued run is not claimed before this (back-off while a tool call of it is still running elsewhere). */
  @Column({ name: 'not_before', type: 'bigint', transformer: epochMs })
  notBefore: number;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochMs })
  updatedAt: number;

  @Column({ name: 'finished_at', type: 'bigint', nullable: true, transformer: epochMs })
  finishedAt: number | null;
}

/** A new run, QUEUED and claimable at once. */
export function newQueuedRun(
  fields: Pick<AgentRunEntity, 'id' | 'tenantId' | 'sessionId' | 'agentId' | 'clientMessageId' | 'actIteration'>,
  at: number,
): AgentRunEntity {
  return {
    ...fields,
    status: 'QUEUED',
    iterations: 0,
    pendingCalls: null,
    answer: null,
    error: null,
    finishReason: null,
    hitlRequest: null,
    owner: null,
    leaseUntil: 0,
    notBefore: 0,
    createdAt: at,
    updatedAt: at,
    finishedAt: null,
  };
}
