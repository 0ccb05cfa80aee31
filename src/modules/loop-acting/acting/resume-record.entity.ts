import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';
import { LargeText } from '@app/database/large-text.column';

/**
 * One `/resume` per (session, clientMessageId). Inserting it is the claim, so a repeated clientMessageId
 * never runs anything twice; the response is stored with the DONE state (one UPDATE) and replayed.
 */
@Entity({ name: 'resume_record' })
// For the abandoned-decision recovery. On SQLite the migration makes it partial (WHERE state = 'IN_PROGRESS').
@Index('idx_resume_record_claim', ['state', 'createdAt'])
export class ResumeRecordEntity {
  @PrimaryColumn({ name: 'session_id', type: 'varchar', length: 36 })
  sessionId: string;

  @PrimaryColumn({ name: 'client_message_id', type: 'varchar', length: 128 })
  clientMessageId: string;

  /** IN_PROGRESS until the response is stored, then DONE. */
  @Column({ type: 'varchar', length: 16 })
  state: string;

  /** The response JSON, exactly as first answered (set together with DONE). LONGTEXT on MySQL. */
  @LargeText()
  @Column({ type: 'text', nullable: true })
  response: string | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;
}
