import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';

/** The database dialects the suites run against. */
export type TestDialect = 'sqlite' | 'mysql';

/** A fresh, empty database for one suite or test. */
export interface TestDatabase {
  /** A DATABASE_URL: `sqlite:<file>` or `mysql://user:password@host:port/<database>`. */
  url: string;
  /** Deletes the database (the SQLite file with its -wal/-shm, or the MySQL schema); safe to call twice. */
  drop(): Promise<void>;
}

/** 'sqlite' always; 'mysql' too when TEST_MYSQL_URL is set (the Jest global setup sets it when it can). */
export const TEST_DIALECTS: TestDialect[] = process.env.TEST_MYSQL_URL ? ['sqlite', 'mysql'] : ['sqlite'];

/** The todo title that stands for a suite's MySQL variant on a machine without MariaDB. */
export const MYSQL_UNAVAILABLE_TODO = 'mysql dialect: install mariadb-server (or set TEST_MYSQL_URL) to run';

/**
 * Creates an empty database of the dialect: a new SQLite file under the OS temp directory, or a new
 * `gw_test_<random>` utf8mb4 schema on the TEST_MYSQL_URL server. Call drop() in afterAll.
 */
export async function createTestDatabaseUrl(dialect: TestDialect): Promise<TestDatabase> {
  const suffix = randomBytes(6).toString('hex');
  return dialect === 'sqlite' ? createSqliteDatabase(suffix) : createMysqlDatabase(suffix);
}

/**
 * `describe` once per available dialect, titled `<title> (<dialect>)`. Without MySQL the MySQL variant
 * still shows, as one todo, so a skipped dialect is never silent.
 */
export const describeEachDialect = (title: string, fn: (dialect: TestDialect) => void): void => {
  describe.each(TEST_DIALECTS)(`${title} (%s)`, fn);
  if (!TEST_DIALECTS.includes('mysql')) {
    describe(`${title} (mysql)`, () => it.todo(MYSQL_UNAVAILABLE_TODO));
  }
};

function createSqliteDatabase(suffix: string): TestDatabase {
  const file = join(tmpdir(), `gw-${suffix}.sqlite`);
  return {
    url: `sqlite:${file}`,
    drop: async () => {
      await Promise.all(['', '-wal', '-shm'].map((ending) => rm(`${file}${ending}`, { force: true })));
    },
  };
}

async function createMysqlDatabase(suffix: string): Promise<TestDatabase> {
  const serverUrl = process.env.TEST_MYSQL_URL;
  if (!serverUrl) {
    throw new Error(
      'TEST_MYSQL_URL is not set: the mysql dialect needs a server (see test/support/jest-global-setup.ts).',
    );
  }
  const name = `gw_test_${suffix}`;
  await runOnServer(serverUrl, `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => runOnServer(serverUrl, `DROP DATABASE IF EXISTS \`${name}\``),
  };
}

async function runOnServer(serverUrl: string, sql: string): Promise<void> {
  const connection = await createConnection(serverUrl);
  try {
    await connection.query(sql);
  } finally {
    await connection.end();
  }
}
