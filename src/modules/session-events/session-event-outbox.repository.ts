import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { HotSql, sqlRowCount } from '@app/database/hot-sql';
import { HotTable } from '@app/database/hot-table';
import { SessionEventOutboxEntity } from './session-event-outbox.entity';

let keptCount = 0;

/**
 * The id of an outbox row kept at `now`: its time, then a count of this process's rows, then random bits (36
 * characters). Rows one transaction kept in the same millisecond sort in the order they were kept, so a round writes a
 * run's `message` before its `run.finished` (by `at, id`); a random UUID ordered them by chance.
 */
export function keptEventId(now: number): string {
  keptCount = (keptCount + 1) % 0x1_0000_0000;
  const time = now.toString(16).padStart(12, '0');
  return `${time}-${keptCount.toString(16).padStart(8, '0')}-${randomBytes(7).toString('hex')}`;
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

  /** Keeps `row` in the transaction of `manager` (committed or rolled back with the state it describes). */
  async keep(row: SessionEventOutboxEntity, manager: EntityManager): Promise<void> {
    const sql = `INSERT INTO session_event_outbox (${this.table.columnList}) VALUES ${this.table.rowMarks}`;
    await this.sql.on(manager).run(sql, this.table.values(row));
  }

  /** Rows kept before `before` (their process had long enough to write them), oldest first. */
  async findKeptBefore(before: number, limit: number): Promise<SessionEventOutboxEntity[]> {
    const rows = await this.sql.all(
      `SELECT ${this.table.columnList} FROM session_event_outbox WHERE at < ? ORDER BY at, id LIMIT ${sqlRowCount(limit)}`,
      [before],
    );
    return rows.map((r) => this.table.fromRow(r));
  }

  /** Removes the rows whose events are written. */
  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.sql.run(`DELETE FROM session_event_outbox WHERE id IN (${ids.map(() => '?').join(', ')})`, [...ids]);
  }
}
