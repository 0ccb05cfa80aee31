import { Injectable } from '@nestjs/common';
import { parseJsonColumn } from '@app/database/json-column';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository, type FindOptionsWhere } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { HotSql } from '@app/database/hot-sql';
import { AgentSessionEntity } from './agent-session.entity';
import type { ActiveSkill, SessionStatus, TodoItem } from './session.types';

/** Queries of sessions. Every state change is a compare-and-set on `lock_version`. */
@Injectable()
export class AgentSessionRepository {
  constructor(
    @InjectRepository(AgentSessionEntity) private readonly sessions: Repository<AgentSessionEntity>,
    private readonly sql: HotSql,
  ) {}

  /** Read on every act (the hot path): a prepared statement and a hand mapper instead of findOne. */
  async find(id: string): Promise<AgentSessionEntity | null> {
    const [row] = await this.sql.all(`SELECT ${COLUMNS} FROM agent_session WHERE id = ?`, [id]);
    return row ? toEntity(row) : null;
  }

  async insert(row: AgentSessionEntity): Promise<void> {
    await this.sessions.insert(row as QueryDeepPartialEntity<AgentSessionEntity>);
  }

  /** Applies `changes` only if nobody moved the session since `seenVersion`; false when someone did. */
  async compareAndSet(id: string, seenVersion: number, changes: Partial<AgentSessionEntity>): Promise<boolean> {
    const result = await this.sessions.update({ id, lockVersion: seenVersion }, {
      ...changes,
      lockVersion: seenVersion + 1,
      updatedAt: Date.now(),
    } as QueryDeepPartialEntity<AgentSessionEntity>);
    return (result.affected ?? 0) === 1;
  }

  /** Sessions matching the filters, newest first, with the total count (admin list). */
  list(filter: {
    tenantId?: string;
    status?: AgentSessionEntity['status'];
    agentId?: string;
    skip: number;
    take: number;
  }): Promise<[AgentSessionEntity[], number]> {
    const where: FindOptionsWhere<AgentSessionEntity> = {};
    if (filter.tenantId !== undefined) where.tenantId = filter.tenantId;
    if (filter.status !== undefined) where.status = filter.status;
    if (filter.agentId !== undefined) where.agentId = filter.agentId;
    return this.sessions.findAndCount({
      where,
      order: { createdAt: 'DESC', id: 'ASC' },
      skip: filter.skip,
      take: filter.take,
    });
  }

  /** Replaces the todo list (the session's own slot; no version bump, it never changes the session's state). */
  async setTodoList(id: string, items: TodoItem[]): Promise<void> {
    await this.sessions.update({ id }, { todoList: items, updatedAt: Date.now() });
  }

  /** Sets the active skill (SKILL_CALL; no version bump, like the todo list), in the caller's transaction if given. */
  async setActiveSkill(id: string, skill: ActiveSkill, manager?: EntityManager): Promise<void> {
    const repo = manager ? manager.getRepository(AgentSessionEntity) : this.sessions;
    await repo.update({ id }, { activeSkill: skill, updatedAt: Date.now() });
  }

  /**
   * Moves the session from `from` to `to` (a version bump, so a concurrent act or resume that read the old state
   * loses its compare-and-set); false when the session is not in `from`. The gateway's own loop marks a session
   * RUNNING while one of its runs works, in the transaction of the run's checkpoint (`manager`).
   */
  async moveStatus(id: string, from: SessionStatus, to: SessionStatus, manager?: EntityManager): Promise<boolean> {
    const result = await (manager ?? this.sessions.manager)
      .createQueryBuilder()
      .update(AgentSessionEntity)
      .set({ status: to, lockVersion: () => 'lock_version + 1', updatedAt: Date.now() })
      .where('id = :id AND status = :from', { id, from })
      .execute();
    return (result.affected ?? 0) === 1;
  }

  /** Records a higher iteration without a version bump (monotonic, so concurrent acts cannot conflict). */
  async raiseIteration(id: string, iteration: number): Promise<void> {
    await this.sql.run('UPDATE agent_session SET iteration = ? WHERE id = ? AND iteration < ?', [
      iteration,
      id,
      iteration,
    ]);
  }
}

const COLUMNS =
  'id, tenant_id, agent_id, user_id, permissions, capabilities, status, iteration, iteration_budget, hitl_pending, hitl_request, pending_batch, todo_list, active_skill, task, lock_version, created_at, updated_at';

function toEntity(r: Record<string, unknown>): AgentSessionEntity {
  return {
    id: String(r.id),
    tenantId: String(r.tenant_id),
    agentId: String(r.agent_id),
    userId: String(r.user_id),
    permissions: parseJsonColumn(r.permissions, []),
    capabilities: parseJsonColumn(r.capabilities, []),
    status: r.status as AgentSessionEntity['status'],
    iteration: Number(r.iteration),
    iterationBudget: Number(r.iteration_budget),
    hitlPending: Number(r.hitl_pending) === 1 || r.hitl_pending === true,
    hitlRequest: parseJsonColumn(r.hitl_request, null),
    pendingBatch: parseJsonColumn(r.pending_batch, null),
    todoList: parseJsonColumn(r.todo_list, []),
    activeSkill: parseJsonColumn(r.active_skill, null),
    task: parseJsonColumn(r.task, null),
    lockVersion: Number(r.lock_version),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}
