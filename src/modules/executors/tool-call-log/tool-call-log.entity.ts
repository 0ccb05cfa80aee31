import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';

/** What a tool log row's status can be: a call's outcome, or the decision it waits for. */
export const TOOL_CALL_LOG_STATUSES = [
  'COMPLETED',
  'FAILED',
  'REJECTED',
  'PENDING_APPROVAL',
  'UNKNOWN_OUTCOME',
] as const;
export type ToolCallLogStatus = (typeof TOOL_CALL_LOG_STATUSES)[number];

/** One row per finished tool call (both entries: act and executeDirect). Arguments are stored redacted. */
@Entity({ name: 'tool_call_log' })
// The admin list walks these in time order: by tenant, by tenant and tool, by session (any tenant).
@Index('idx_tool_call_log_tenant_created', ['tenantId', 'createdAt'])
@Index('idx_tool_call_log_session', ['sessionId', 'createdAt'])
@Index('idx_tool_call_log_tool', ['tenantId', 'toolName', 'createdAt'])
// The platform admin's list by tool (no tenant).
@Index('idx_tool_call_log_tool_created', ['toolName', 'createdAt'])
@Index('idx_tool_call_log_created', ['createdAt'])
export class ToolCallLogEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64, nullable: true })
  tenantId: string | null;

  @Column({ name: 'session_id', type: 'varchar', length: 36, nullable: true })
  sessionId: string | null;

  @Column({ name: 'agent_id', type: 'varchar', length: 36, nullable: true })
  agentId: string | null;

  @Column({ name: 'user_id', type: 'varchar', length: 128, nullable: true })
  userId: string | null;

  @Column({ name: 'tool_call_id', type: 'varchar', length: 128, nullable: true })
  toolCallId: string | null;

  @Column({ name: 'tool_id', type: 'varchar', length: 36, nullable: true })
  toolId: string | null;

  @Column({ name: 'tool_name', type: 'varchar', length: 64 })
  toolName: string;

  @Column({ type: 'varchar', length: 24 })
  status: ToolCallLogStatus;

  /** Which entry ran it: ACT, RESUME or DIRECT. */
  @Column({ type: 'varchar', length: 8 })
  entry: string;

  @Column({ name: 'arguments_redacted', type: 'text' })
  argumentsRedacted: string;

  @Column({ type: 'int' })
  attempts: number;

  @Column({ name: 'duration_ms', type: 'int' })
  durationMs: number;

  @Column({ name: 'error_class', type: 'varchar', length: 32, nullable: true })
  errorClass: string | null;

  @Column({ name: 'result_chars', type: 'int' })
  resultChars: number;

  /** The first characters of the result, redacted. */
  @Column({ name: 'result_preview', type: 'text' })
  resultPreview: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;
}
