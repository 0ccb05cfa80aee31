import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { HotSql, sqlRowCount } from '@app/database/hot-sql';

/** A session as read for a retention batch. */
export interface SessionRef {
  id: string;
  tenantId: string;
  updatedAt: number;
}

/** The statuses of a session SESSION_IDLE_CLOSE_DAYS closes (RUNNING ones are left to their runs). */
export type OpenSessionStatus = 'ACTIVE' | 'INTERRUPTED';
export const OPEN_SESSION_STATUSES: readonly OpenSessionStatus[] = ['ACTIVE', 'INTERRUPTED'];

/** A closed session due for deletion. */
export type ClosedSessionRef = SessionRef;

/**
 * Where a keyset walk over sessions stands (closed ones due for deletion, idle ones to close): sessions that could not
 * be deleted or closed are stepped over.
 */
export interface SessionCursor {
  updatedAt: number;
  id: string;
}

/**
 * The deletes of the retention job, across the tables of closed sessions (agent_session, tool_call_journal,
 * tool_result_chunk, resume_record, hitl_request, tool_call_log, session_event_outbox, session_event, agent_run, agent_message, agent_task). One place knows what retention covers, so a
 * table added later (events, workspaces) is added here. Every delete is bounded (`limit` rows, one short
 * autocommit statement through an index or primary key), so MySQL never holds a long lock: on MySQL
 * `DELETE ... LIMIT n`, on SQLite the same through `rowid IN (SELECT ... LIMIT n)`.
 */
@Injectable()
export class RetentionRepository {
  private readonly mysql: boolean;

  /** Raw statements through HotSql: the journal, session and tool log are hot tables, read and written that one way. */
  constructor(
    @InjectDataSource() dataSource: DataSource,
    private readonly sql: HotSql,
  ) {
    this.mysql = dataSource.options.type !== 'better-sqlite3';
  }

  /** CLOSED sessions last changed before `cutoff`, oldest first, after `cursor`. */
  closedSessionsBefore(cutoff: number, limit: number, cursor: SessionCursor | null): Promise<ClosedSessionRef[]> {
    return this.sessionsBefore("status = 'CLOSED'", cutoff, limit, cursor);
  }

  /**
   * Sessions of `status` (ACTIVE or INTERRUPTED) last changed before `cutoff` (idle since), oldest first, after
   * `cursor`: one status at a time, so the page is one range of the status index in its order.
   */
  idleSessionsBefore(
    status: OpenSessionStatus,
    cutoff: number,
    limit: number,
    cursor: SessionCursor | null,
  ): Promise<SessionRef[]> {
    return this.sessionsBefore(`status = '${status}'`, cutoff, limit, cursor);
  }

  private async sessionsBefore(
    status: string,
    cutoff: number,
    limit: number,
    cursor: SessionCursor | null,
  ): Promise<SessionRef[]> {
    // The lower bound stands alone (`updated_at >= ?`), so the index range starts at the cursor: inside the OR it
    // bounded nothing, and each page walked again every session the walk had stepped over (kept ones).
    const after = cursor ? ' AND updated_at >= ? AND (updated_at > ? OR id > ?)' : '';
    const params: unknown[] = [cutoff, ...(cursor ? [cursor.updatedAt, cursor.updatedAt, cursor.id] : [])];
    const rows = await this.sql.all<{ id: string; tenant_id: string; updated_at: string | number }>(
      `SELECT id, tenant_id, updated_at FROM agent_session WHERE ${status} AND updated_at < ?${after} ORDER BY updated_at, id LIMIT ${sqlRowCount(limit)}`,
      params,
    );
    return rows.map((r) => ({ id: r.id, tenantId: r.tenant_id, updatedAt: Number(r.updated_at) }));
  }

  /** Journal entries of a session, except STARTED ones (a call that may still be running, or awaits a human). */
  deleteFinishedJournal(session: ClosedSessionRef, limit: number): Promise<number> {
    return this.boundedDelete(
      'tool_call_journal',
      "tenant_id = ? AND session_id = ? AND state <> 'STARTED'",
      [session.tenantId, session.id],
      limit,
    );
  }

  /** Stored result chunks of a session (continuations of long tool results). */
  deleteResultChunks(session: ClosedSessionRef, limit: number): Promise<number> {
    return this.boundedDelete('tool_result_chunk', 'session_id = ?', [session.id], limit);
  }

  deleteResumeRecords(session: ClosedSessionRef, limit: number): Promise<number> {
    return this.boundedDelete('resume_record', 'session_id = ?', [session.id], limit);
  }

  /** HITL requests of a session, except PENDING ones (a human may still decide them). */
  deleteDecidedHitlRequests(session: ClosedSessionRef, limit: number): Promise<number> {
    return this.boundedDelete('hitl_request', "session_id = ? AND status <> 'PENDING'", [session.id], limit);
  }

  deleteSessionToolLog(session: ClosedSessionRef, limit: number): Promise<number> {
    return this.boundedDelete(
      'tool_call_log',
      'tenant_id = ? AND session_id = ?',
      [session.tenantId, session.id],
      limit,
    );
  }

  /**
   * Events of a session still kept in `session_event_outbox` (given up by the outbox round, or not written yet): gone
   * with their session, so no round writes an event of a session that no longer exists, which nothing would delete.
   */
  deleteKeptSessionEvents(session: ClosedSessionRef, limit: number): Promise<number> {
    return this.boundedDelete('session_event_outbox', 'session_id = ?', [session.id], limit);
  }

  /** Session events of a session (GET /sessions/{id}/events). */
  deleteSessionEvents(session: ClosedSessionRef, limit: number): Promise<number> {
    return this.boundedDelete('session_event', 'session_id = ?', [session.id], limit);
  }

  /** Runs of the gateway's own loop on a session, and their conversation (nothing runs in a closed session). */
  deleteRuns(session: ClosedSessionRef, limit: number): Promise<number> {
    return this.boundedDelete('agent_run', "session_id = ? AND status <> 'RUNNING'", [session.id], limit);
  }

  deleteMessages(session: ClosedSessionRef, limit: number): Promise<number> {
    return this.boundedDelete('agent_message', 'session_id = ?', [session.id], limit);
  }

  /** Sub-agent tasks the session delegated (their child sessions are sessions of their own, kept by their status). */
  deleteDelegatedTasks(session: ClosedSessionRef, limit: number): Promise<number> {
    return this.boundedDelete('agent_task', 'parent_session_id = ?', [session.id], limit);
  }

  /**
   * The child sessions of the session's sub-agent tasks that are not closed: the session's close hooks close them, so
   * only a close whose process died before its hooks ran leaves them (a finished child's run will not notice).
   */
  async unclosedTaskChildren(session: ClosedSessionRef): Promise<string[]> {
    const rows = await this.sql.all<{ id: string }>(
      "SELECT t.child_session_id AS id FROM agent_task t JOIN agent_session s ON s.id = t.child_session_id WHERE t.parent_session_id = ? AND s.status <> 'CLOSED'",
      [session.id],
    );
    return rows.map((r) => r.id);
  }

  /** True while a sub-agent task names the session as its child (the task goes when its parent session is purged). */
  async isChildOfTask(session: ClosedSessionRef): Promise<boolean> {
    const rows = await this.sql.all('SELECT 1 AS found FROM agent_task WHERE child_session_id = ? LIMIT 1', [
      session.id,
    ]);
    return rows.length > 0;
  }

  /** The session row itself: only while still CLOSED and once nothing that retention keeps refers to it. */
  async deleteSessionIfEmpty(session: ClosedSessionRef): Promise<boolean> {
    const deleted = await this.sql.run(
      "DELETE FROM agent_session WHERE id = ? AND tenant_id = ? AND status = 'CLOSED'" +
        ' AND NOT EXISTS (SELECT 1 FROM tool_call_journal WHERE tenant_id = ? AND session_id = ?)' +
        ' AND NOT EXISTS (SELECT 1 FROM hitl_request WHERE session_id = ?)',
      [session.id, session.tenantId, session.tenantId, session.id, session.id],
    );
    return deleted > 0;
  }

  /** Tool-log rows of no session (executeDirect) written before `cutoff`. */
  deleteSessionlessToolLog(cutoff: number, limit: number): Promise<number> {
    return this.boundedDelete('tool_call_log', 'session_id IS NULL AND created_at < ?', [cutoff], limit);
  }

  private boundedDelete(table: string, where: string, params: unknown[], limit: number): Promise<number> {
    const sql = this.mysql
      ? `DELETE FROM ${table} WHERE ${where} LIMIT ${sqlRowCount(limit)}`
      : `DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ${where} LIMIT ${sqlRowCount(limit)})`;
    return this.sql.run(sql, params);
  }
}
