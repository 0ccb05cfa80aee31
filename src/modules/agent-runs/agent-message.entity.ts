import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';
import { jsonText } from '@app/database/json-column';
import { LargeText } from '@app/database/large-text.column';
import type { MessageRole, PendingToolCall } from './agent-runs.types';

/** One message of a session's conversation with the gateway's own loop (`seq` 1, 2, 3... per session). */
@Entity({ name: 'agent_message' })
@Index('uq_agent_message_session_seq', ['sessionId', 'seq'], { unique: true })
export class AgentMessageEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'session_id', type: 'varchar', length: 36 })
  sessionId: string;

  @Column({ type: 'int' })
  seq: number;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  @Column({ name: 'run_id', type: 'varchar', length: 36 })
  runId: string;

  @Column({ type: 'varchar', length: 16 })
  role: MessageRole;

  @LargeText()
  @Column({ type: 'text', nullable: true })
  content: string | null;

  @LargeText()
  @Column({ name: 'tool_calls', type: 'text', nullable: true, transformer: jsonText })
  toolCalls: PendingToolCall[] | null;

  /**
   * The reasoning a model in a thinking mode answered beside this message's tool calls (`reasoning_content`): sent back
   * with them, as DeepSeek requires; GET .../messages does not show it.
   */
  @LargeText()
  @Column({ type: 'text', nullable: true })
  reasoning: string | null;

  @Column({ name: 'tool_call_id', type: 'varchar', length: 128, nullable: true })
  toolCallId: string | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;
}
