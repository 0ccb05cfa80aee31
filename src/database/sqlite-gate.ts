import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource, QueryRunner } from 'typeorm';

/**
 * TypeORM's better-sqlite3 driver shares ONE connection and ONE query runner between all requests, and
 * `transaction()` yields between statements. Unguarded, a statement of request B that runs while request A's
 * transaction is open becomes part of A's transaction (lost if A rolls back), and two transactions nest as
 * savepoints of each other. The gate serializes: a transaction holds it from BEGIN to COMMIT/ROLLBACK;
 * statements outside it wait for the gate; statements inside it (same async context) pass straight through.
 * SQLite has one writer anyway, so this costs nothing that the database would not serialize itself.
 */
export class SqliteGate {
  private tail: Promise<void> = Promise.resolve();
  private held = false;
  private readonly insideTransaction = new AsyncLocalStorage<true>();

  /** Runs `work` with the gate held (FIFO); inside a transaction of the same context it runs at once. */
  async run<T>(work: () => Promise<T> | T): Promise<T> {
    if (this.insideTransaction.getStore()) return work();
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    this.held = true;
    try {
      return await work();
    } finally {
      this.held = false;
      release();
    }
  }

  /** Runs `work` as a transaction body: the gate is held and every statement of this context passes it. */
  transaction<T>(work: () => Promise<T>): Promise<T> {
    return this.run(() => this.insideTransaction.run(true, work));
  }

  /**
   * For synchronous statements on the raw connection: true when one may run right now without waiting
   * (nobody holds the gate, or this context holds it). A synchronous statement cannot interleave.
   */
  canRunNow(): boolean {
    return !this.held || this.insideTransaction.getStore() === true;
  }
}

const GATES = new WeakMap<DataSource, SqliteGate>();

/** The gate of a SQLite data source (undefined for MySQL, whose pool gives each transaction its own connection). */
export function sqliteGateOf(dataSource: DataSource): SqliteGate | undefined {
  return GATES.get(dataSource);
}

/** Installs the gate on a better-sqlite3 data source: its shared query runner and its transactions. */
export function installSqliteGate(dataSource: DataSource): void {
  if (dataSource.options.type !== 'better-sqlite3' || GATES.has(dataSource)) return;
  const gate = new SqliteGate();
  GATES.set(dataSource, gate);
  const runner: QueryRunner = dataSource.driver.createQueryRunner('master');
  const query = runner.query.bind(runner) as (...args: unknown[]) => Promise<unknown>;
  (runner as { query: unknown }).query = (...args: unknown[]) => gate.run(() => query(...args));
  const manager = dataSource.manager;
  const transaction = manager.transaction.bind(manager) as (...args: unknown[]) => Promise<unknown>;
  (manager as { transaction: unknown }).transaction = (...args: unknown[]) => gate.transaction(() => transaction(...args));
}
