import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';
import { jsonText } from '@app/database/json-column';
import { LargeText } from '@app/database/large-text.column';
import type { ToolRequirement } from '@app/modules/tool-registry/tool-registry.types';
import type { HitlRequestView, PendingBatch, SessionStatus, TodoItem, ActiveSkill, SessionTask } from './session.types';

/** The checkpoint of one agent session: everything needed to continue after a restart or an interrupt. */
@Entity({ name: 'agent_session' })
@Index('idx_agent_session_tenant', ['tenantId', 'status'])
@Index('idx_agent_session_tenant_created', ['tenantId', 'createdAt'])
// The platform admin's session lists (GET /admin/sessions without a tenant, by agent, by status).
@Index('idx_agent_session_created', ['createdAt'])
@Index('idx_agent_session_agent_created', ['agentId', 'createdAt'])
@Index('idx_agent_session_status_created', ['status', 'createdAt'])
// For the retention job. On SQLite the migration makes it partial (WHERE status = 'CLOSED').
@Index('idx_agent_session_status_updated', ['status', 'updatedAt'])
export class AgentSessionEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  @Column({ name: 'agent_id', type: 'varchar', length: 36 })
  agentId: string;

  @Column({ name: 'user_id', type: 'varchar', length: 128 })
  userId: string;

  /** Up to 1,000 permissions of 128 characters: LONGTEXT on MySQL. */
  @LargeText()
  @Column({ type: 'text', transformer: jsonText })
  permissions: string[];

  @Column({ type: 'simple-json' })
  capabilities: ToolRequirement[];

  @Column({ type: 'varchar', length: 16 })
  status: SessionStatus;

  /** The highest loop iteration the runtime has submitted. */
  @Column({ type: 'int' })
  iteration: number;

  /** Iterations allowed before the next checkpoint pause (the agent's maxIterations, extended on resume). */
  @Column({ name: 'iteration_budget', type: 'int' })
  iterationBudget: number;

  @Column({ name: 'hitl_pending', type: 'boolean', width: 1 })
  hitlPending: boolean;

  @Column({ name: 'hitl_request', type: 'simple-json', nullable: true })
  hitlRequest: HitlRequestView | null;

  /** The interrupted batch: the call awaiting a decision and the calls left NOT_RUN, with full arguments (LONGTEXT on MySQL). */
  @LargeText()
  @Column({ name: 'pending_batch', type: 'text', nullable: true, transformer: jsonText })
  pendingBatch: PendingBatch | null;

  /** Up to 100 items of 500 characters (UPDATE_TODO_LIST's schema): LONGTEXT on MySQL. */
  @LargeText()
  @Column({ name: 'todo_list', type: 'text', transformer: jsonText })
  todoList: TodoItem[];

  @Column({ name: 'active_skill', type: 'simple-json', nullable: true })
  activeSkill: ActiveSkill | null;

  /** What the session is for (skills are matched against it). */
  @Column({ type: 'simple-json', nullable: true })
  task: SessionTask | null;

  /** Optimistic lock: every state change is `... WHERE lock_version = <read>`. */
  @Column({ name: 'lock_version', type: 'int' })
  lockVersion: number;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochMs })
  updatedAt: number;
}
