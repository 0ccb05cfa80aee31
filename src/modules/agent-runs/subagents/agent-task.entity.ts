import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';

/** A sub-agent task: the child session and run a parent session's tool call started. */
@Entity({ name: 'agent_task' })
@Index('uq_agent_task_parent_call', ['parentSessionId', 'parentToolCallId'], { unique: true })
@Index('idx_agent_task_child', ['childSessionId'])
@Index('idx_agent_task_tenant_created', ['tenantId', 'createdAt'])
export class AgentTaskEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  @Column({ name: 'parent_session_id', type: 'varchar', length: 36 })
  parentSessionId: string;

  /** The journal key of the call that started it. */
  @Column({ name: 'parent_tool_call_id', type: 'varchar', length: 128 })
  parentToolCallId: string;

  @Column({ name: 'parent_agent_id', type: 'varchar', length: 36 })
  parentAgentId: string;

  @Column({ name: 'agent_id', type: 'varchar', length: 36 })
  agentId: string;

  @Column({ name: 'agent_name', type: 'varchar', length: 128 })
  agentName: string;

  @Column({ name: 'child_session_id', type: 'varchar', length: 36 })
  childSessionId: string;

  @Column({ name: 'child_run_id', type: 'varchar', length: 36 })
  childRunId: string;

  /** Hops from the root session (a root session's task has depth 1). */
  @Column({ type: 'int' })
  depth: number;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;

  /** When the parent's model was told it finished (null: not yet). */
  @Column({ name: 'reminded_at', type: 'bigint', nullable: true, transformer: epochMs })
  remindedAt: number | null;
}
