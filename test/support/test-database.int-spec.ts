import { existsSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { createConnection } from 'mysql2/promise';
import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from './test-database';

/** The smallest client over either URL, using the drivers the app uses. */
interface Probe {
  run(sql: string): Promise<void>;
  rows(sql: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

async function connect(url: string): Promise<Probe> {
  if (url.startsWith('sqlite:')) {
    const db = new Database(url.slice('sqlite:'.length));
    return {
      run: async (sql) => void db.exec(sql),
      rows: async (sql) => db.prepare(sql).all() as Record<string, unknown>[],
      close: async () => void db.close(),
    };
  }
  const connection = await createConnection(url);
  return {
    run: async (sql) => void (await connection.query(sql)),
    rows: async (sql) => (await connection.query(sql))[0] as Record<string, unknown>[],
    close: () => connection.end(),
  };
}

const sqliteFile = (url: string) => url.slice('sqlite:'.length);
const mysqlDatabaseName = (url: string) => new URL(url).pathname.slice(1);

describeEachDialect('createTestDatabaseUrl', (dialect) => {
  const created: TestDatabase[] = [];
  const create = async () => {
    const database = await createTestDatabaseUrl(dialect);
    created.push(database);
    return database;
  };

  afterAll(async () => {
    await Promise.all(created.map((database) => database.drop()));
  });

  it('returns a URL of the dialect that the driver connects to and queries', async () => {
    const { url } = await create();
    expect(url.startsWith(dialect === 'sqlite' ? 'sqlite:/' : 'mysql://')).toBe(true);
    const probe = await connect(url);
    try {
      await expect(probe.rows('SELECT 1 AS one')).resolves.toEqual([{ one: 1 }]);
    } finally {
      await probe.close();
    }
  });

  it('returns a distinct, empty database on each call', async () => {
    const first = await create();
    const second = await create();
    expect(first.url).not.toBe(second.url);
    const a = await connect(first.url);
    const b = await connect(second.url);
    try {
      await a.run('CREATE TABLE only_in_first (id INT PRIMARY KEY)');
      await expect(a.rows('SELECT COUNT(*) AS n FROM only_in_first')).resolves.toEqual([{ n: 0 }]);
      // Not rejects.toThrow: better-sqlite3 keeps the SqliteError class of the first suite that loaded it
      // in this worker, and Jest does not see that object as an Error in later suites.
      await expect(b.rows('SELECT COUNT(*) AS n FROM only_in_first')).rejects.toMatchObject({
        message: expect.stringMatching(/only_in_first/),
      });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('stores 4-byte UTF-8 text unchanged', async () => {
    const probe = await connect((await create()).url);
    try {
      await probe.run('CREATE TABLE notes (body VARCHAR(20) NOT NULL)');
      await probe.run("INSERT INTO notes (body) VALUES ('tool 🔧 ü')");
      await expect(probe.rows('SELECT body FROM notes')).resolves.toEqual([{ body: 'tool 🔧 ü' }]);
    } finally {
      await probe.close();
    }
  });

  it('drop() deletes the database, and a second drop() does not fail', async () => {
    const database = await create();
    const probe = await connect(database.url);
    await probe.run('CREATE TABLE t (id INT PRIMARY KEY)');
    await probe.close();
    if (dialect === 'sqlite') {
      // What a killed process leaves beside the file.
      writeFileSync(`${sqliteFile(database.url)}-wal`, '');
      writeFileSync(`${sqliteFile(database.url)}-shm`, '');
    }

    await database.drop();
    await database.drop();

    if (dialect === 'sqlite') {
      const file = sqliteFile(database.url);
      expect([file, `${file}-wal`, `${file}-shm`].filter((path) => existsSync(path))).toEqual([]);
    } else {
      const server = await connect(process.env.TEST_MYSQL_URL!);
      try {
        const name = mysqlDatabaseName(database.url);
        await expect(server.rows(`SHOW DATABASES LIKE '${name}'`)).resolves.toEqual([]);
      } finally {
        await server.close();
      }
    }
  });
});
