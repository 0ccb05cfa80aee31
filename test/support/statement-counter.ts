import { Connection } from 'mysql2';
import type { DataSource } from 'typeorm';
import type { HotSql } from '@app/database/hot-sql';

/** The statements the drivers of this process ran since {@link recordStatements} started. */
export interface StatementRecording {
  /** Each statement's SQL, in the order the driver was asked to run it. */
  readonly statements: string[];
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
  const restore: Array<() => void> = [];
  const wrap = (proto: Record<string, unknown>, name: string, sqlOf: (self: unknown, args: unknown[]) => string) => {
    const original = proto[name] as Method;
    proto[name] = function (this: unknown, ...args: unknown[]) {
      statements.push(sqlOf(this, args));
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
    clear: () => void statements.splice(0),
    stop: () => restore.forEach((undo) => undo()),
  };
}
