import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { SqliteGate, sqliteGateOf } from './sqlite-gate';

type Row = Record<string, unknown>;

interface SqliteStatement {
  reader: boolean;
  all(...params: unknown[]): Row[];
  run(...params: unknown[]): { changes: number };
  pluck(): { get(): unknown };
}
interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
}
interface MysqlPool {
  execute(sql: string, params: unknown[], cb: (err: Error | null, result: unknown) => void): void;
}

/**
 * Prepared statements on the driver itself, for the per-call hot path (journal, session, tool log): on
 * SQLite a cached better-sqlite3 statement (through the {@link SqliteGate}), on MySQL the pool's
 * `execute` (server-side prepared statements, cached per connection). TypeORM's query path adds a query
 * runner, a broadcaster and result wrapping per statement; everything else keeps using TypeORM.
 */
@Injectable()
export class HotSql {
  private readonly sqlite?: {
    db: SqliteConnection;
    gate: SqliteGate;
    statements: Map<string, SqliteStatement>;
    dataVersion?: { get(): unknown };
  };
  private readonly mysql?: MysqlPool;

  constructor(@InjectDataSource() dataSource: DataSource) {
    const driver = dataSource.driver as unknown as { databaseConnection?: SqliteConnection; pool?: MysqlPool };
    if (dataSource.options.type === 'better-sqlite3') {
      this.sqlite = { db: driver.databaseConnection!, gate: sqliteGateOf(dataSource)!, statements: new Map() };
    } else {
      this.mysql = driver.pool!;
    }
  }

  /** Rows of a SELECT. */
  all<T extends Row = Row>(sql: string, params: unknown[]): Promise<T[]> {
    if (this.sqlite) return this.onSqlite(() => this.statement(sql).all(...params) as T[]);
    return this.onMysql(sql, params) as Promise<T[]>;
  }

  /** Rows changed by an INSERT/UPDATE/DELETE. */
  async run(sql: string, params: unknown[]): Promise<number> {
    if (this.sqlite) return this.onSqlite(() => this.statement(sql).run(...params).changes);
    const result = (await this.onMysql(sql, params)) as { affectedRows?: number };
    return result.affectedRows ?? 0;
  }

  /**
   * SQLite's `PRAGMA data_version`: a number that changes whenever another connection (another process on the
   * same file) commits; this connection's own commits do not change it. Undefined on MySQL. A few microseconds,
   * no table read, safe to take while another request's transaction is open.
   */
  sqliteDataVersion(): number | undefined {
    if (!this.sqlite) return undefined;
    this.sqlite.dataVersion ??= this.sqlite.db.prepare('PRAGMA data_version').pluck();
    return Number(this.sqlite.dataVersion.get());
  }

  private statement(sql: string): SqliteStatement {
    let stmt = this.sqlite!.statements.get(sql);
    if (!stmt) {
      stmt = this.sqlite!.db.prepare(sql);
      this.sqlite!.statements.set(sql, stmt);
    }
    return stmt;
  }

  /** A synchronous statement runs at once when no other request's transaction is open, else after it. */
  private async onSqlite<T>(work: () => T): Promise<T> {
    return this.sqlite!.gate.canRunNow() ? work() : this.sqlite!.gate.run(work);
  }

  private onMysql(sql: string, params: unknown[]): Promise<unknown> {
    return new Promise((resolve, reject) =>
      this.mysql!.execute(sql, params, (err, result) => (err ? reject(err) : resolve(result))),
    );
  }
}
