import { DataSource, EntityManager, QueryRunner } from 'typeorm';

/**
 * TypeORM's better-sqlite3 driver shares ONE connection and ONE query runner between all requests, and
 * `transaction()` yields between statements. Unguarded, a statement of request B that runs while request A's
 * transaction is open becomes part of A's transaction (lost if A rolls back), and two transactions nest as
 * savepoints of each other. The gate serializes: a transaction holds it from BEGIN to COMMIT/ROLLBACK and runs
 * its statements on its own runner view that does not wait; every other statement waits for the gate.
 * SQLite has one writer anyway, so this costs nothing the database would not serialize itself.
 * (No AsyncLocalStorage: its promise hooks would tax every request of the process.)
 */
export class SqliteGate {
  private tail: Promise<void> = Promise.resolve();
  private held = false;

  /** Runs `work` with the gate held, in arrival order. */
  async run<T>(work: () => Promise<T> | T): Promise<T> {
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

  /** For synchronous statements on the raw connection: true when nobody holds the gate (they cannot interleave). */
  canRunNow(): boolean {
    return !this.held;
  }
}

const GATES = new WeakMap<DataSource, SqliteGate>();

/** The gate of a SQLite data source (undefined for MySQL, whose pool gives each transaction its own connection). */
export function sqliteGateOf(dataSource: DataSource): SqliteGate | undefined {
  return GATES.get(dataSource);
}

type Work<T> = (manager: EntityManager) => Promise<T>;

/**
 * TypeORM begins SQLite transactions deferred: the write lock is taken at the first write, and when another process
 * (another instance on the same file) wrote since this transaction's first read, that upgrade fails at once with
 * "database is locked" (busy_timeout does not wait there). Every transaction here writes, so it takes the write lock
 * at BEGIN instead, where busy_timeout waits for the other process's writer.
 */
const DEFERRED_BEGIN = 'BEGIN TRANSACTION';
const IMMEDIATE_BEGIN = 'BEGIN IMMEDIATE TRANSACTION';

/**
 * Installs the gate on a better-sqlite3 data source: statements on its shared runner wait for the gate, and
 * `transaction()` holds the gate while its work runs on a view of the runner whose statements pass.
 * Code inside a transaction must use the transaction's EntityManager (as TypeORM requires anyway).
 */
export function installSqliteGate(dataSource: DataSource): void {
  if (dataSource.options.type !== 'better-sqlite3' || GATES.has(dataSource)) return;
  const gate = new SqliteGate();
  GATES.set(dataSource, gate);
  const runner: QueryRunner = dataSource.driver.createQueryRunner('master');
  const unguardedQuery = runner.query.bind(runner) as (...args: unknown[]) => Promise<unknown>;
  (runner as { query: unknown }).query = (...args: unknown[]) => gate.run(() => unguardedQuery(...args));
  (dataSource.manager as { transaction: unknown }).transaction = <T>(...args: unknown[]): Promise<T> => {
    const work = args.find((a) => typeof a === 'function') as Work<T>;
    return gate.run(async () => {
      const own = Object.create(runner) as QueryRunner;
      (own as { query: unknown }).query = (...a: unknown[]) =>
        unguardedQuery.apply(own, a[0] === DEFERRED_BEGIN ? [IMMEDIATE_BEGIN, ...a.slice(1)] : a);
      await own.startTransaction();
      try {
        const result = await work(new EntityManager(dataSource, own));
        await own.commitTransaction();
        return result;
      } catch (err) {
        await own.rollbackTransaction().catch(() => undefined);
        throw err;
      }
    });
  };
}
