import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';
import { LargeText } from '@app/database/large-text.column';

export const JOURNAL_STATES = ['STARTED', 'COMPLETED', 'FAILED'] as const;
export type JournalState = (typeof JOURNAL_STATES)[number];

/**
 * The idempotency journal, one row per (tenant, session, toolCallId). Inserting STARTED is the claim: the
 * primary key decides the one winner among concurrent submissions. The outcome and the result are written
 * by one UPDATE. Results longer than one chunk continue in `tool_result_chunk`.
 */
@Entity({ name: 'tool_call_journal' })
// For the dead-owner sweep. On SQLite the migration makes it partial (WHERE state = 'STARTED'): only calls in flight.
@Index('idx_tool_call_journal_lease', ['state', 'leaseExpiresAt'])
export class ToolCallJournalEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  @PrimaryColumn({ name: 'session_id', type: 'varchar', length: 36 })
  sessionId: string;

  @PrimaryColumn({ name: 'tool_call_id', type: 'varchar', length: 128 })
  toolCallId: string;

  @Column({ name: 'tool_name', type: 'varchar', length: 64 })
  toolName: string;

  @Column({ name: 'tool_id', type: 'varchar', length: 36, nullable: true })
  toolId: string | null;

  /** sha256 of tool name + canonical JSON of the arguments. */
  @Column({ type: 'varchar', length: 64 })
  fingerprint: string;

  /**
   * The arguments the call ran with (canonical JSON), as its format read them (a Gemini map unwrapped): what a run
   * again after a crash runs, never read a second time. The fingerprint is of the arguments as submitted. LONGTEXT on
   * MySQL.
   */
  @LargeText()
  @Column({ name: 'arguments_json', type: 'text' })
  argumentsJson: string;

  @Column({ name: 'side_effect', type: 'varchar', length: 16 })
  sideEffect: string;

  @Column({ type: 'varchar', length: 16 })
  state: JournalState;

  /** The result status the runtime saw: COMPLETED, FAILED or REJECTED. */
  @Column({ name: 'result_status', type: 'varchar', length: 16, nullable: true })
  resultStatus: string | null;

  @Column({ type: 'int' })
  attempts: number;

  @Column({ type: 'int' })
  iteration: number;

  @Column({ type: 'varchar', length: 100 })
  owner: string;

  @Column({ name: 'lease_expires_at', type: 'bigint', transformer: epochMs })
  leaseExpiresAt: number;

  @Column({ name: 'started_at', type: 'bigint', transformer: epochMs })
  startedAt: number;

  @Column({ name: 'finished_at', type: 'bigint', transformer: epochMs, nullable: true })
  finishedAt: number | null;

  @Column({ name: 'duration_ms', type: 'int', nullable: true })
  durationMs: number | null;

  @Column({ name: 'is_error', type: 'boolean', width: 1 })
  isError: boolean;

  @Column({ name: 'error_class', type: 'varchar', length: 32, nullable: true })
  errorClass: string | null;

  /** The first chunk of the result (the whole result when `result_chunks` is 0). */
  @Column({ type: 'text', nullable: true })
  content: string | null;

  @Column({ name: 'total_chars', type: 'int' })
  totalChars: number;

  /** Further chunks in tool_result_chunk (seq 1..n). */
  @Column({ name: 'result_chunks', type: 'int' })
  resultChunks: number;

  /** maxInlineChars in force when the call was made, so a reused result reads exactly as the first time. */
  @Column({ name: 'inline_limit', type: 'int' })
  inlineLimit: number;
}
