import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';
import { LargeText } from '@app/database/large-text.column';

export const HITL_REQUEST_STATUSES = ['PENDING', 'DECIDED'] as const;
export type HitlRequestStatus = (typeof HITL_REQUEST_STATUSES)[number];

/**
 * One request for a human decision, and the decision once made (who, when, on which fingerprint).
 * The decision is written before anything it allows runs.
 */
@Entity({ name: 'hitl_request' })
// The review queue in time order: a tenant's (by status or not), the platform's (by status or not).
@Index('idx_hitl_request_queue', ['tenantId', 'status', 'createdAt'])
@Index('idx_hitl_request_tenant_created', ['tenantId', 'createdAt'])
@Index('idx_hitl_request_created', ['createdAt'])
@Index('idx_hitl_request_session', ['sessionId', 'status'])
@Index('idx_hitl_request_status_created', ['status', 'createdAt'])
export class HitlRequestEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  @Column({ name: 'session_id', type: 'varchar', length: 36 })
  sessionId: string;

  @Column({ name: 'agent_id', type: 'varchar', length: 36 })
  agentId: string;

  @Column({ name: 'request_type', type: 'varchar', length: 24 })
  requestType: string;

  @Column({ name: 'tool_name', type: 'varchar', length: 64, nullable: true })
  toolName: string | null;

  @Column({ name: 'tool_call_id', type: 'varchar', length: 128, nullable: true })
  toolCallId: string | null;

  /** Fingerprint of the exact call under review; an approval applies to this fingerprint only. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  fingerprint: string | null;

  @Column({ name: 'prompt_message', type: 'text' })
  promptMessage: string;

  /** Arguments as shown to the reviewer (redacted). */
  @Column({ name: 'tool_params', type: 'text' })
  toolParams: string;

  @Column({ name: 'trigger_reason', type: 'text' })
  triggerReason: string;

  @Column({ type: 'int' })
  iteration: number;

  @Column({ type: 'varchar', length: 16 })
  status: HitlRequestStatus;

  @Column({ type: 'varchar', length: 16, nullable: true })
  decision: string | null;

  /** Up to 20,000 characters, counted as class-validator does (an emoji is one): up to 80 KB, LONGTEXT on MySQL. */
  @LargeText()
  @Column({ name: 'decision_message', type: 'text', nullable: true })
  decisionMessage: string | null;

  /** Who decided: `<reviewer> (key <keyId>)` for an admin decision, `runtime (key <keyId>)` for a resume. */
  @Column({ name: 'decided_by', type: 'varchar', length: 255, nullable: true })
  decidedBy: string | null;

  @Column({ name: 'decided_at', type: 'bigint', transformer: epochMs, nullable: true })
  decidedAt: number | null;

  @Column({ name: 'client_message_id', type: 'varchar', length: 128, nullable: true })
  clientMessageId: string | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;
}
