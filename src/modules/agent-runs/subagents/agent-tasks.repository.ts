import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, IsNull } from 'typeorm';
import { AgentTaskEntity } from './agent-task.entity';
import { AgentRunEntity } from '../agent-run.entity';
import type { RunStatus } from '../agent-runs.types';

/** What a list of tasks reads of a child run: its status, error and the head of its answer. */
export interface TaskRunSummary extends Pick<AgentRunEntity, 'id' | 'status' | 'answer' | 'error' | 'finishReason'> {
  /** The whole answer's length (null without one). */
  answerChars: number | null;
}

/** A run in one of these has not ended (queued, running, or stopped for a human). */
const OPEN_RUN_STATUSES = `'QUEUED', 'RUNNING', 'INTERRUPTED', 'PAUSED'`;

/** Queries of sub-agent tasks. */
@Injectable()
export class AgentTasksRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  find(id: string): Promise<AgentTaskEntity | null> {
    return this.dataSource.getRepository(AgentTaskEntity).findOneBy({ id });
  }

  findByParentCall(parentSessionId: string, parentToolCallId: string): Promise<AgentTaskEntity | null> {
    return this.dataSource.getRepository(AgentTaskEntity).findOneBy({ parentSessionId, parentToolCallId });
  }

  /** The task whose child `sessionId` is (null for a root session). */
  findByChildSession(
    sessionId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<AgentTaskEntity | null> {
    return manager.getRepository(AgentTaskEntity).findOneBy({ childSessionId: sessionId });
  }

  /**
   * Holds the session's row until `m`'s transaction ends. A submission holds its tree's root session (every submission
   * of the tree counts and inserts its task one at a time), then its parent (a close of the parent waits for it, or it
   * sees the close); always in that order, so two submissions never wait for each other's second lock. SQLite needs
   * no clause: its transactions take the write lock at BEGIN. Call it first in the transaction: MySQL's snapshot is
   * then taken after the lock, and the count sees the previous holder's task. @returns the session's status (null: no
   * such session).
   */
  async lockSession(sessionId: string, m: EntityManager): Promise<string | null> {
    const lock = m.connection.options.type === 'better-sqlite3' ? '' : ' FOR UPDATE';
    const rows: Array<{ status: string }> = await m.query(`SELECT status FROM agent_session WHERE id = ?${lock}`, [
      sessionId,
    ]);
    return rows[0]?.status ?? null;
  }

  /**
   * Tasks whose run has not ended (queued, running, or stopped for a human) in the whole delegation tree under
   * `rootSessionId`: the root's tasks, their children's, and so on down.
   */
  async openCountInTree(rootSessionId: string, manager: EntityManager = this.dataSource.manager): Promise<number> {
    // The root read from its table gives the walk the column's type and collation (MariaDB); UNION (not UNION ALL)
    // walks a session once, whatever the rows say. CROSS JOIN keeps SQLite on that order (the tree, then each node's
    // tasks by their parent index): with a plain JOIN it read every task of every tenant and probed the tree.
    const rows: Array<{ n: number | string }> = await manager.query(
      `WITH RECURSIVE tree (id) AS (
         SELECT id FROM agent_session WHERE id = ?
         UNION SELECT t.child_session_id FROM agent_task t JOIN tree ON t.parent_session_id = tree.id
       )
       SELECT COUNT(*) AS n FROM tree CROSS JOIN agent_task t ON t.parent_session_id = tree.id
         JOIN agent_run r ON r.id = t.child_run_id
        WHERE r.status IN (${OPEN_RUN_STATUSES})`,
      [rootSessionId],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** The child sessions of the session's tasks that are not closed yet, whether their runs ended or not. */
  async unclosedChildSessions(parentSessionId: string): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT t.child_session_id AS id FROM agent_task t JOIN agent_session s ON s.id = t.child_session_id
        WHERE t.parent_session_id = ? AND s.status <> 'CLOSED'`,
      [parentSessionId],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Child sessions left open under a CLOSED parent (a process died between the parent's close and its close hooks)
   * whose subtree holds a PENDING HITL request: walked up from the pending requests (few, by their status index),
   * so closing each of these ends those requests, as the hooks would have. At most `limit`. CROSS JOIN keeps SQLite
   * reading each session by its id: with a plain JOIN it walked every CLOSED session (its status index) to probe `up`.
   */
  async unclosedAboveApprovalsUnderClosed(
    limit: number,
  ): Promise<Array<{ tenantId: string; parentSessionId: string; childSessionId: string }>> {
    const rows: Array<{ tenantId: string; parentSessionId: string; childSessionId: string }> =
      await this.dataSource.query(
        `WITH RECURSIVE up (child_id, parent_id) AS (
           SELECT t.child_session_id, t.parent_session_id FROM hitl_request r
             JOIN agent_task t ON t.child_session_id = r.session_id WHERE r.status = 'PENDING'
           UNION SELECT t.child_session_id, t.parent_session_id FROM agent_task t JOIN up ON t.child_session_id = up.parent_id
         )
         SELECT DISTINCT c.tenant_id AS tenantId, up.parent_id AS parentSessionId, up.child_id AS childSessionId
           FROM up CROSS JOIN agent_session p ON p.id = up.parent_id CROSS JOIN agent_session c ON c.id = up.child_id
          WHERE p.status = 'CLOSED' AND c.status <> 'CLOSED'
          LIMIT ${Math.max(1, Math.floor(limit))}`,
      );
    return rows;
  }

  /** The parent session of the task whose child session this is, when that parent is CLOSED; else null. */
  async closedParentOf(childSessionId: string): Promise<string | null> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT t.parent_session_id AS id FROM agent_task t JOIN agent_session p ON p.id = t.parent_session_id
        WHERE t.child_session_id = ? AND p.status = 'CLOSED'`,
      [childSessionId],
    );
    return rows[0]?.id ?? null;
  }

  async insert(row: AgentTaskEntity, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.getRepository(AgentTaskEntity).insert(row);
  }

  list(tenantId: string | null, parentSessionId: string | undefined, skip: number, take: number) {
    return this.dataSource.getRepository(AgentTaskEntity).findAndCount({
      where: { ...(tenantId !== null && { tenantId }), ...(parentSessionId && { parentSessionId }) },
      order: { createdAt: 'ASC', id: 'ASC' },
      skip,
      take,
    });
  }

  /**
   * The child runs of `tasks`, by id, with the first `answerMaxChars` characters of each answer (`answerChars`: its
   * length): a list of 500 tasks read every answer whole, each up to MODEL_MAX_ANSWER_BYTES.
   */
  async runsOf(tasks: readonly AgentTaskEntity[], answerMaxChars: number): Promise<Map<string, TaskRunSummary>> {
    if (tasks.length === 0) return new Map();
    const chars = this.dataSource.options.type === 'better-sqlite3' ? 'LENGTH' : 'CHAR_LENGTH';
    const rows = await this.dataSource
      .getRepository(AgentRunEntity)
      .createQueryBuilder('r')
      .select('r.id', 'id')
      .addSelect('r.status', 'status')
      .addSelect('r.error', 'error')
      .addSelect('r.finish_reason', 'finishReason')
      .addSelect(`SUBSTR(r.answer, 1, ${Math.max(0, Math.floor(answerMaxChars))})`, 'answer')
      .addSelect(`${chars}(r.answer)`, 'answerChars')
      .where('r.id IN (:...ids)', { ids: tasks.map((t) => t.childRunId) })
      .getRawMany<{
        id: string;
        status: RunStatus;
        error: string | null;
        finishReason: string | null;
        answer: string | null;
        answerChars: unknown;
      }>();
    return new Map(
      rows.map((r) => [r.id, { ...r, answerChars: r.answerChars === null ? null : Number(r.answerChars) }]),
    );
  }

  /** Tasks of the parent session that finished and that its model was not told about yet. */
  async unreminded(parentSessionId: string): Promise<AgentTaskEntity[]> {
    return this.dataSource.getRepository(AgentTaskEntity).findBy({ parentSessionId, remindedAt: IsNull() });
  }

  async markReminded(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.dataSource
      .getRepository(AgentTaskEntity)
      .update({ id: In(ids as string[]) }, { remindedAt: Date.now() });
  }
}
