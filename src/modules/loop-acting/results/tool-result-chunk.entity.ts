import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Continuation chunks of results longer than one TEXT column can hold on MySQL (16,000 characters each,
 * within 64 KB in utf8mb4). Written in the same transaction as the journal outcome.
 */
@Entity({ name: 'tool_result_chunk' })
export class ToolResultChunkEntity {
  @PrimaryColumn({ name: 'session_id', type: 'varchar', length: 36 })
  sessionId: string;

  @PrimaryColumn({ name: 'tool_call_id', type: 'varchar', length: 128 })
  toolCallId: string;

  @PrimaryColumn({ type: 'int' })
  seq: number;

  @Column({ type: 'text' })
  content: string;
}
