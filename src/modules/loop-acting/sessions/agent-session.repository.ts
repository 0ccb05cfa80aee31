import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { HotSql, HotStatements, HotTransaction, sqlRowCount } from '@app/database/hot-sql';
import { HotTable } from '@app/database/hot-table';
import { AgentSessionEntity } from './agent-session.entity';
import type { ActiveSkill, SessionStatus, TodoItem } from './session.types';

type Row = Record<string, unknown>;

/**
 * Every read and write of `agent_session` except retention's bounded deletes, through {@link HotSql} (read on
 * every act), with the columns of the entity ({@link HotTable}). Every state change is a compare-and-set on
 * `lock_version`.
 */
@Injectable()
export class AgentSessionRepository {
  readonly table: HotTable<AgentSessionEntity>;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    private readonly sql: HotSql,
  ) {
    this.table = new HotTable(dataSource, AgentSessionEntity);
  }

  async find(id: string): Promise<AgentSessionEntity | null> {
    const [row] = await this.sql.all(`SELECT ${this.table.columnList} FROM agent_session WHERE id = ?`, [id]);
    return row ? this.toEntity(row) : null;
  }

  /** Whether the session is CLOSED (DELETE /sessions/{id}, or a rejection with ABORT_SESSION). */
  async isClosed(id: string): Promise<boolean> {
    return (await this.find(id))?.status === 'CLOSED';
  }

  /** A row (columns named `<prefix><column>`) as a session. */
  toEntity(row: Row, prefix = ''): AgentSessionEntity {
    return this.table.fromRow(row, prefix);
  }

  async insert(row: AgentSessionEntity): Promise<void> {
    await this.sql.run(
      `INSERT INTO agent_session (${this.table.columnList}) VALUES ${this.table.rowMarks}`,
      this.table.values(row),
    );
  }

  /**
   * Applies `changes` only if nobody moved the session since `seenVersion`; false when someone did. With `alongside`,
   * both run in one transaction and `alongside` (e.g. inserting the HITL request the session now waits for) only
   * when the compare-and-set succeeded: they commit together or not at all. With `updatedBefore` (epoch ms), only if
   * the session is also unchanged since then: an act of a new iteration marks it changed without a version bump.
   */
  async compareAndSet(
    id: string,
    seenVersion: number,
    changes: Partial<AgentSessionEntity>,
    alongside?: (tx: HotTransaction) => Promise<void>,
    updatedBefore?: number,
  ): Promise<boolean> {
    const set = this.table.assignments({ ...changes, lockVersion: seenVersion + 1, updatedAt: Date.now() });
    const idle = updatedBefore === undefined ? '' : ' AND updated_at < ?';
    const params = [...set.params, id, seenVersion, ...(updatedBefore === undefined ? [] : [updatedBefore])];
    const update = (db: HotStatements) =>
      db.run(`UPDATE agent_session SET ${set.sql} WHERE id = ? AND lock_version = ?${idle}`, params);
    if (!alongside) return (await update(this.sql)) === 1;
    return this.sql.transaction(async (tx) => {
      if ((await update(tx)) !== 1) return false;
      await alongside(tx);
      return true;
    });
  }

  /** Sessions matching the filters, newest first, with the total count (admin list). */
  async list(filter: {
    tenantId?: string;
    status?: AgentSessionEntity['status'];
    agentId?: string;
    skip: number;
    take: number;
  }): Promise<[AgentSessionEntity[], number]> {
    const conditions: string[] = [];
    const params: unknown[] = [];
    for (const [column, value] of [
      ['tenant_id', filter.tenantId],
      ['status', filter.status],
      ['agent_id', filter.agentId],
    ] as const) {
      if (value === undefined) continue;
      conditions.push(`${column} = ?`);
      params.push(value);
    }
    const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    const [count] = await this.sql.all(`SELECT COUNT(*) AS n FROM agent_session ${where}`, params);
    // Both keys descending: an index on created_at (the tenant's, the agent's, the status's, or all sessions') is then
    // read backwards, in order (its rows end with the id); with `id ASC` MySQL sorted every matching session per page.
    const rows = await this.sql.all(
      `SELECT ${this.table.columnList} FROM agent_session ${where} ORDER BY created_at DESC, id DESC ` +
        `LIMIT ${sqlRowCount(filter.take)} OFFSET ${sqlRowCount(filter.skip)}`,
      params,
    );
    return [rows.map((r) => this.toEntity(r)), Number(count.n)];
  }

  /** Replaces the todo list (the session's own slot; no version bump, it never changes the session's state). */
  async setTodoList(id: string, items: TodoItem[]): Promise<void> {
    const set = this.table.assignments({ todoList: items, updatedAt: Date.now() });
    await this.sql.run(`UPDATE agent_session SET ${set.sql} WHERE id = ?`, [...set.params, id]);
  }

  /** Sets the active skill (SKILL_CALL; no version bump, like the todo list), in the caller's transaction if given. */
  async setActiveSkill(id: string, skill: ActiveSkill, manager?: EntityManager): Promise<void> {
    const set = this.table.assignments({ activeSkill: skill, updatedAt: Date.now() });
    await this.on(manager).run(`UPDATE agent_session SET ${set.sql} WHERE id = ?`, [...set.params, id]);
  }

  /**
   * Moves the session from `from` to `to` (a version bump, so a concurrent act or resume that read the old state
   * loses its compare-and-set); false when the session is not in `from`. The gateway's own loop marks a session
   * RUNNING while one of its runs works, in the transaction of the run's checkpoint (`manager`).
   */
  async moveStatus(id: string, from: SessionStatus, to: SessionStatus, manager?: EntityManager): Promise<boolean> {
    const changed = await this.on(manager).run(
      'UPDATE agent_session SET status = ?, lock_version = lock_version + 1, updated_at = ? WHERE id = ? AND status = ?',
      [to, Date.now(), id, from],
    );
    return changed === 1;
  }

  /** Sets how many iterations the session may reach before a CHECKPOINT_PAUSE (a run of the gateway's loop). */
  async setIterationBudget(id: string, iterationBudget: number, manager?: EntityManager): Promise<void> {
    await this.on(manager).run('UPDATE agent_session SET iteration_budget = ? WHERE id = ?', [iterationBudget, id]);
  }

  /**
   * Records a higher iteration without a version bump (monotonic, so concurrent acts cannot conflict), and the session
   * as changed now: SESSION_IDLE_CLOSE_DAYS counts from `updated_at`, and a session a runtime acted on daily with calls
   * that needed no approval was closed as idle. Pass a transaction to make it part of the call's first write.
   */
  async raiseIteration(id: string, iteration: number, db: HotStatements = this.sql): Promise<void> {
    await db.run('UPDATE agent_session SET iteration = ?, updated_at = ? WHERE id = ? AND iteration < ?', [
      iteration,
      Date.now(),
      id,
      iteration,
    ]);
  }

  /** HotSql itself, or inside another module's TypeORM transaction. */
  private on(manager?: EntityManager): HotStatements {
    return manager ? this.sql.on(manager) : this.sql;
  }
}
