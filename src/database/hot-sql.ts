import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
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

const MAX_CACHED_STATEMENTS = 500;

/** Statements on the hot tables: {@link HotSql} itself, or one of its transactions. */
export interface HotStatements {
  /** Rows of a SELECT. */
  all<T extends Row = Row>(sql: string, params: unknown[]): Promise<T[]>;
  /** Rows changed by an INSERT/UPDATE/DELETE. */
  run(sql: string, params: unknown[]): Promise<number>;
}

/** One transaction: hot statements, and TypeORM's manager on the same connection for the other tables it spans. */
export interface HotTransaction extends HotStatements {
  manager: EntityManager;
}

/**
 * Prepared statements on the driver itself, for the per-call hot path (journal, session, tool log): on
 * SQLite a cached better-sqlite3 statement (through the {@link SqliteGate}), on MySQL the pool's
 * `execute` (server-side prepared statements, cached per connection). TypeORM's query path adds a query
 * runner, a broadcaster and result wrapping per statement; everything else keeps using TypeORM.
 */
@Injectable()
export class HotSql implements HotStatements {
  private readonly sqlite?: {
    db: SqliteConnection;
    gate: SqliteGate;
    statements: Map<string, SqliteStatement>;
    dataVersion?: { get(): unknown };
  };
  private readonly mysql?: MysqlPool;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
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
   * Runs `work` in one transaction (TypeORM's, so the SQLite gate serializes it with every other statement and
   * MySQL gives it its own pool connection): its hot statements go to the driver on that connection, and
   * `tx.manager` lets other tables' repositories write in the same transaction. Commits when `work` resolves,
   * rolls back when it throws.
   */
  transaction<T>(work: (tx: HotTransaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(this.within(manager)));
  }

  /**
   * Hot statements inside a transaction another module opened with TypeORM (`manager` is its EntityManager), so a
   * hot table's write commits with it; outside a transaction (the data source's own manager) this HotSql itself.
   */
  on(manager: EntityManager): HotStatements {
    return manager.queryRunner?.isTransactionActive ? this.within(manager) : this;
  }

  private within(manager: EntityManager): HotTransaction {
    if (this.sqlite) {
      // The transaction holds the gate: its statements run at once (waiting for the gate would deadlock).
      return {
        manager,
        all: async <T extends Row = Row>(sql: string, params: unknown[]) => this.statement(sql).all(...params) as T[],
        run: async (sql, params) => this.statement(sql).run(...params).changes,
      };
    }
    const connection = (manager.queryRunner as unknown as { databaseConnection: MysqlPool }).databaseConnection;
    const execute = (sql: string, params: unknown[]) =>
      new Promise<unknown>((resolve, reject) =>
        connection.execute(sql, params, (err, result) => (err ? reject(err) : resolve(result))),
      );
    return {
      manager,
      all: async <T extends Row = Row>(sql: string, params: unknown[]) => (await execute(sql, params)) as T[],
      run: async (sql, params) => ((await execute(sql, params)) as { affectedRows?: number }).affectedRows ?? 0,
    };
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
      // Bounded: statements with numbers written in (LIMIT, OFFSET) vary; the hot ones are prepared again at once.
      if (this.sqlite!.statements.size >= MAX_CACHED_STATEMENTS) this.sqlite!.statements.clear();
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

/**
 * A row count for LIMIT/OFFSET, written into the statement (MySQL's prepared statements take no portable
 * placeholder there): a whole number, never negative, so nothing else can reach the SQL text.
 */
export function sqlRowCount(n: number): number {
  return Math.max(0, Math.floor(n));
}
