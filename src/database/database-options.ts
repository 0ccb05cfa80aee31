import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import { GATEWAY_ENTITIES } from './gateway-entities';
import { GATEWAY_MIGRATIONS } from '@migrations/index';

/**
 * Server-side prepared statements one MySQL connection keeps (mysql2 closes the least recently used beyond it). HotSql
 * prepares each statement text once per connection; texts vary (a page's OFFSET, a batch's row count), and kept for
 * good they would add up, over the pool's connections and the instances, to the server's max_prepared_stmt_count
 * (16,382 by default, for every client of the server), after which every client's next PREPARE is refused.
 */
export const MAX_PREPARED_STATEMENTS_PER_CONNECTION = 100;

export type DatabaseDialect = 'sqlite' | 'mysql';

export interface DatabaseSettings {
  /** `sqlite:<file>` or `mysql://user:password@host:port/db`. */
  url: string;
  sqliteSynchronous?: 'NORMAL' | 'FULL';
  logging?: boolean;
}

export function dialectOf(url: string): DatabaseDialect {
  if (url.startsWith('sqlite:')) return 'sqlite';
  if (url.startsWith('mysql://')) return 'mysql';
  throw new Error(`DATABASE_URL must start with sqlite: or mysql:// (got ${url.split(':')[0]}:...)`);
}

/**
 * The ONE place that builds TypeORM options: the app, the migration CLI, the tests and the benchmarks
 * all call it. Migrations are the only schema source (`synchronize` is always off).
 */
export function buildDataSourceOptions(settings: DatabaseSettings): DataSourceOptions {
  const common = {
    entities: [...GATEWAY_ENTITIES],
    migrations: [...GATEWAY_MIGRATIONS],
    migrationsTableName: 'gateway_migrations',
    synchronize: false,
    // Off by default: a failed query's log line would carry its parameters (tool arguments, results).
    logging: settings.logging ? (['query', 'error'] as ('query' | 'error')[]) : false,
  };
  if (dialectOf(settings.url) === 'sqlite') {
    const file = settings.url.slice('sqlite:'.length);
    const inMemory = file === ':memory:';
    if (!inMemory) mkdirSync(dirname(resolve(file)), { recursive: true });
    const synchronous = settings.sqliteSynchronous ?? 'NORMAL';
    return {
      ...common,
      type: 'better-sqlite3',
      database: file,
      // WAL + NORMAL: a killed process loses nothing committed; see README "Durability".
      prepareDatabase: (db: { pragma(s: string): unknown }) => {
        if (!inMemory) db.pragma('journal_mode = WAL');
        db.pragma(`synchronous = ${synchronous}`);
        db.pragma('busy_timeout = 5000');
        db.pragma('foreign_keys = ON');
      },
    };
  }
  return {
    ...common,
    type: 'mysql',
    url: settings.url,
    charset: 'utf8mb4_unicode_ci',
    timezone: 'Z',
    supportBigNumbers: true,
    bigNumberStrings: false,
    extra: { connectionLimit: 16, maxPreparedStatements: MAX_PREPARED_STATEMENTS_PER_CONNECTION },
  };
}

/**
 * Hides the password of a database URL for messages and logs: all of the user info's password, which (as the URL
 * parser and mysql2 read it) runs to the last `@` before the path, so a password holding an `@` is hidden whole.
 */
export function redactDatabaseUrl(url: string): string {
  return url.replace(/^(mysql:\/\/[^:/@]+):[^/?#]*@/, '$1:***@');
}
