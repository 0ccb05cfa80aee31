import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { HotSql, sqlRowCount } from '@app/database/hot-sql';
import { HotTable } from '@app/database/hot-table';
import { KeptSessionEvent, SessionEventOutboxEntity } from './session-event-outbox.entity';
import type { SessionEventType } from './session-event.types';

/**
 * A row an outbox round is due to write: `event` when it reads, else `unreadable` (what reading it threw, e.g. a
 * payload that no longer parses). The identity and the attempts are read either way.
 */
export interface DueKeptEvent {
  id: string;
  sessionId: string;
  type: SessionEventType;
  attempts: number;
  event?: SessionEventOutboxEntity;
  unreadable?: unknown;
}

/** Queries of `session_event_outbox` (see {@link SessionEventOutboxEntity}). */
@Injectable()
export class SessionEventOutboxRepository {
  private readonly table: HotTable<SessionEventOutboxEntity>;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    private readonly sql: HotSql,
  ) {
    this.table = new HotTable(dataSource, SessionEventOutboxEntity);
  }

  /** Keeps `event` in the transaction of `manager` (committed or rolled back with the state it describes). */
  async keep(event: KeptSessionEvent, manager: EntityManager): Promise<void> {
    const sql = `INSERT INTO session_event_outbox (${this.table.columnList}) VALUES ${this.table.rowMarks}`;
    const row: SessionEventOutboxEntity = { ...event, attempts: 0, retryAt: 0, givenUpAt: null };
    await this.sql.on(manager).run(sql, this.table.values(row));
  }

  /**
   * Rows kept before `keptBefore` (their process had long enough to write them), not given up and not waiting for a
   * retry after `now`: those never tried first (rows that failed before never fill a round ahead of them), then
   * oldest first.
   */
  async findDue(keptBefore: number, now: number, limit: number): Promise<DueKeptEvent[]> {
    const rows = await this.sql.all(
      `SELECT ${this.table.columnList} FROM session_event_outbox WHERE given_up_at IS NULL AND retry_at <= ? AND at < ? ` +
        `ORDER BY retry_at, at, id LIMIT ${sqlRowCount(limit)}`,
      [now, keptBefore],
    );
    return rows.map((r) => {
      const due: DueKeptEvent = {
        id: String(r.id),
        sessionId: String(r.session_id),
        type: String(r.type) as SessionEventType,
        attempts: Number(r.attempts),
      };
      try {
        due.event = this.table.fromRow(r);
      } catch (err) {
        due.unreadable = err;
      }
      return due;
    });
  }

  /**
   * Counts a failed attempt on a row seen with `seenAttempts`: tried again from `retryAt`, or never again when
   * `givenUpAt` is set. False when another round counted it first (the row's count moved on, or it was given up).
   */
  async countFailedAttempt(
    id: string,
    seenAttempts: number,
    next: { retryAt: number; givenUpAt: number | null },
  ): Promise<boolean> {
    const counted = await this.sql.run(
      'UPDATE session_event_outbox SET attempts = ?, retry_at = ?, given_up_at = ? ' +
        'WHERE id = ? AND attempts = ? AND given_up_at IS NULL',
      [seenAttempts + 1, next.retryAt, next.givenUpAt, id, seenAttempts],
    );
    return counted === 1;
  }

  /**
   * Puts off a row seen with `seenAttempts` and due at `now` until `retryAt`, counting no attempt (the database, not the
   * row, failed it). False when another round moved it first.
   */
  async postponeAttempt(id: string, seenAttempts: number, now: number, retryAt: number): Promise<boolean> {
    const postponed = await this.sql.run(
      'UPDATE session_event_outbox SET retry_at = ? ' +
        'WHERE id = ? AND attempts = ? AND given_up_at IS NULL AND retry_at <= ?',
      [retryAt, id, seenAttempts, now],
    );
    return postponed === 1;
  }

  /** Removes the rows whose events are written. */
  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.sql.run(`DELETE FROM session_event_outbox WHERE id IN (${ids.map(() => '?').join(', ')})`, [...ids]);
  }
}
