import { Column, Entity, PrimaryColumn } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';

/**
 * One `/resume` per (session, clientMessageId). Inserting it is the claim, so a repeated clientMessageId
 * never runs anything twice; the response is stored (in chunks when long) and replayed.
 */
@Entity({ name: 'resume_record' })
export class ResumeRecordEntity {
  @PrimaryColumn({ name: 'session_id', type: 'varchar', length: 36 })
  sessionId: string;

  @PrimaryColumn({ name: 'client_message_id', type: 'varchar', length: 128 })
  clientMessageId: string;

  /** IN_PROGRESS until the response is stored, then DONE. */
  @Column({ type: 'varchar', length: 16 })
  state: string;

  /** Number of chunks of the stored response JSON in tool_result_chunk (tool_call_id = `resume:<clientMessageId>`). */
  @Column({ name: 'response_chunks', type: 'int' })
  responseChunks: number;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;
}
