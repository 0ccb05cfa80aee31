import { DataSource } from 'typeorm';
import { createConnection } from 'mysql2/promise';
import { buildDataSourceOptions } from '@app/database/database-options';
import { openDatabase } from '@app/database/open-database';
import { GATEWAY_MIGRATIONS } from '@migrations/index';
import {
  createTestDatabaseUrl,
  MYSQL_UNAVAILABLE_TODO,
  TEST_DIALECTS,
  TestDatabase,
} from '@test/support/test-database';
import { waitFor } from '@test/support/wait-for';

/** The first migration the two instances find pending: it alters agent_message. */
const FIRST = GATEWAY_MIGRATIONS.findIndex((m) => m.name === 'AddAgentMessageReasoning1764464800000');

describe('two instances starting together on one MariaDB database with migrations pending', () => {
  if (!TEST_DIALECTS.includes('mysql')) return it.todo(MYSQL_UNAVAILABLE_TODO);
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabaseUrl('mysql');
    const old = new DataSource({
      ...buildDataSourceOptions({ url: db.url }),
      migrations: GATEWAY_MIGRATIONS.slice(0, FIRST),
    });
    await old.initialize();
    await old.runMigrations({ transaction: 'each' });
    await old.destroy();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('both start, and each migration runs once', async () => {
    // A reader of agent_message holds its metadata lock: the first instance's ALTER waits inside the migration.
    const reader = await createConnection(db.url);
    const waiting = async (): Promise<number> => {
      const [rows] = await reader.query(
        "SELECT COUNT(*) AS n FROM information_schema.processlist WHERE db = DATABASE() AND state LIKE '%lock%'",
      );
      return Number((rows as Array<{ n: unknown }>)[0].n);
    };
    const opened: DataSource[] = [];
    try {
      await reader.query('START TRANSACTION');
      await reader.query('SELECT COUNT(*) FROM agent_message');
      const first = openDatabase({ url: db.url });
      await waitFor(async () => (await waiting()) === 1, { description: 'the first instance inside a migration' });
      // The second starts while the first is migrating, and waits too (for the table, or for the first).
      const second = openDatabase({ url: db.url });
      await waitFor(async () => (await waiting()) === 2, { description: 'the second instance waiting' });
      await reader.query('COMMIT');

      const started = await Promise.allSettled([first, second]);
      for (const s of started) if (s.status === 'fulfilled') opened.push(s.value);
      expect(started.map((s) => (s.status === 'rejected' ? String(s.reason) : 'started'))).toEqual([
        'started',
        'started',
      ]);
      const rows: Array<{ name: string }> = await opened[0].query('SELECT name FROM gateway_migrations ORDER BY id');
      expect(rows.map((r) => r.name)).toEqual(GATEWAY_MIGRATIONS.map((m) => m.name));
    } finally {
      await reader.end();
      for (const ds of opened) await ds.destroy();
    }
  });
});
