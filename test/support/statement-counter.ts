import { Connection } from 'mysql2';
import type { DataSource } from 'typeorm';
import type { HotSql } from '@app/database/hot-sql';

/** The statements the drivers of this process ran since {@link recordStatements} started. */
export interface StatementRecording {
  /** Each statement's SQL, in the order the driver was asked to run it. */
  readonly statements: string[];
  /** The same statements with the connection that ran each (MySQL's thread id; 0 for SQLite's one connection). */
  readonly onConnections: Array<{ sql: string; connection: number }>;
  /** Forgets what was recorded so far (e.g. after setup). */
  clear(): void;
  /** Puts the drivers back as they were. */
  stop(): void;
}

type Method = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Records every statement an in-process gateway sends to its database, at the driver: on SQLite the statements of
 * its one better-sqlite3 connection (patched on that connection and its statement objects only: the addon's classes
 * are shared by every test file of a Jest worker), on MySQL mysql2's `query`/`execute`. What a request costs in
 * statements, and on MySQL in round trips, whatever layer (TypeORM, the raw hot path) sent them. One at a time.
 */
export function recordStatements(dataSource: DataSource, hotSql: HotSql): StatementRecording {
  const statements: string[] = [];
  const onConnections: Array<{ sql: string; connection: number }> = [];
  const restore: Array<() => void> = [];
  const wrap = (proto: Record<string, unknown>, name: string, sqlOf: (self: unknown, args: unknown[]) => string) => {
    const original = proto[name] as Method;
    proto[name] = function (this: unknown, ...args: unknown[]) {
      const sql = sqlOf(this, args);
      statements.push(sql);
      onConnections.push({ sql, connection: (this as { threadId?: number }).threadId ?? 0 });
      return original.apply(this, args);
    };
    restore.push(() => (proto[name] = original));
  };

  if (dataSource.options.type === 'better-sqlite3') {
    type Statement = Record<string, unknown> & { source: string };
    const db = (dataSource.driver as unknown as { databaseConnection: Record<string, unknown> }).databaseConnection;
    const wrapStatement = (stmt: Statement) => {
      for (const name of ['run', 'all', 'get', 'iterate']) wrap(stmt, name, () => stmt.source);
      return stmt;
    };
    // Statements HotSql prepared before the recording started, then every statement prepared from now on.
    const cached = (hotSql as unknown as { sqlite?: { statements: Map<string, Statement> } }).sqlite?.statements;
    for (const stmt of cached?.values() ?? []) wrapStatement(stmt);
    const prepare = db.prepare as (sql: string) => Statement;
    db.prepare = (sql: string) => wrapStatement(prepare.call(db, sql));
    restore.push(() => (db.prepare = prepare));
  }

  let mysqlBase = Connection.prototype as unknown as Record<string, unknown> | null;
  while (mysqlBase && !Object.prototype.hasOwnProperty.call(mysqlBase, 'execute'))
    mysqlBase = Object.getPrototypeOf(mysqlBase) as Record<string, unknown> | null;
  const mysqlSql = (_self: unknown, args: unknown[]) => {
    const first = args[0];
    return typeof first === 'string' ? first : String((first as { sql?: string } | undefined)?.sql);
  };
  if (mysqlBase && dataSource.options.type !== 'better-sqlite3')
    for (const name of ['query', 'execute']) wrap(mysqlBase, name, mysqlSql);

  return {
    statements,
    onConnections,
    clear: () => {
      statements.splice(0);
      onConnections.splice(0);
    },
    stop: () => restore.forEach((undo) => undo()),
  };
}

/**
 * The recorded statements without the transactions that wrote `table` (found per connection, from their start to
 * their COMMIT or ROLLBACK), e.g. the session events' batches, written beside a request by their own writer.
 */
export function withoutTransactionsOf(recording: StatementRecording, table: string): string[] {
  const kept: string[] = [];
  const open = new Map<number, { sqls: string[]; writes: boolean }>();
  for (const { sql, connection } of recording.onConnections) {
    const tx = open.get(connection);
    if (/^(BEGIN|START TRANSACTION)/i.test(sql)) open.set(connection, { sqls: [sql], writes: false });
    else if (tx) {
      tx.sqls.push(sql);
      tx.writes ||= sql.includes(table);
      if (/^(COMMIT|ROLLBACK)/i.test(sql)) {
        open.delete(connection);
        if (!tx.writes) kept.push(...tx.sqls);
      }
    } else kept.push(sql);
  }
  for (const tx of open.values()) if (!tx.writes) kept.push(...tx.sqls);
  return kept;
}
