import Database from 'better-sqlite3';
import { Connection } from 'mysql2';

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
 * Records every statement this process sends to a database, at the driver (better-sqlite3's statement methods,
 * mysql2's `query`/`execute`): what a request costs in statements, and on MySQL in round trips, whatever layer
 * (TypeORM, the raw hot path) sent them. For an in-process gateway; one recording at a time.
 */
export function recordStatements(): StatementRecording {
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

  const probe = new Database(':memory:');
  const sqliteStatement = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, unknown>;
  probe.close();
  for (const name of ['run', 'all', 'get', 'iterate'])
    wrap(sqliteStatement, name, (self) => String((self as { source: string }).source));

  let mysqlBase = Connection.prototype as unknown as Record<string, unknown> | null;
  while (mysqlBase && !Object.prototype.hasOwnProperty.call(mysqlBase, 'execute'))
    mysqlBase = Object.getPrototypeOf(mysqlBase) as Record<string, unknown> | null;
  const mysqlSql = (_self: unknown, args: unknown[]) => {
    const first = args[0];
    return typeof first === 'string' ? first : String((first as { sql?: string } | undefined)?.sql);
  };
  if (mysqlBase) for (const name of ['query', 'execute']) wrap(mysqlBase, name, mysqlSql);

  return {
    statements,
    clear: () => void statements.splice(0),
    stop: () => restore.forEach((undo) => undo()),
  };
}
