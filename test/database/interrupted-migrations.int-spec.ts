import { DataSource, QueryRunner } from 'typeorm';
import { buildDataSourceOptions } from '@app/database/database-options';
import { openDatabase } from '@app/database/open-database';
import { GATEWAY_MIGRATIONS } from '@migrations/index';
import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';

/** The migrations this suite interrupts: those this version adds (their steps are guarded, see migration-steps.ts). */
const FIRST = GATEWAY_MIGRATIONS.findIndex((m) => m.name === 'AddAgentMessageReasoning1764464800000');

class Killed extends Error {}

/**
 * Runs `migration.up` as a start-up does (in a transaction, `transaction: 'each'`), and stops it as a killed process
 * would, before its statement number `stopAt` (1-based, reads not counted): on MySQL the DDL before it stays (it is not
 * transactional), the rest rolls back. Resolves true when up ran whole before reaching `stopAt`.
 */
async function killInside(ds: DataSource, migration: (typeof GATEWAY_MIGRATIONS)[number], stopAt: number) {
  const runner: QueryRunner = ds.createQueryRunner();
  const query = runner.query.bind(runner);
  let written = 0;
  let armed = false;
  runner.query = ((sql: string, ...rest: unknown[]) => {
    if (armed && !/^\s*(SELECT|SHOW|PRAGMA)\b/i.test(sql) && ++written === stopAt) return Promise.reject(new Killed());
    return (query as (...args: unknown[]) => Promise<unknown>)(sql, ...rest);
  }) as typeof runner.query;
  try {
    await runner.beforeMigration();
    await runner.startTransaction();
    try {
      armed = true;
      await new migration().up(runner);
      return true;
    } catch (err) {
      if (!(err instanceof Killed)) throw err;
      return false;
    } finally {
      armed = false;
      await runner.rollbackTransaction();
      await runner.afterMigration();
    }
  } finally {
    await runner.release();
  }
}

/** A start-up that knows the migrations up to `last` (included), as the gateway's runMigrations runs them. */
async function startUpTo(url: string, last: number, run: (ds: DataSource) => Promise<unknown>): Promise<void> {
  const ds = new DataSource({ ...buildDataSourceOptions({ url }), migrations: GATEWAY_MIGRATIONS.slice(0, last + 1) });
  await ds.initialize();
  try {
    await run(ds);
  } finally {
    await ds.destroy();
  }
}

describeEachDialect('a start-up killed inside a migration', (dialect) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabaseUrl(dialect);
    await startUpTo(db.url, FIRST - 1, (ds) => ds.runMigrations({ transaction: 'each' }));
  });
  afterAll(async () => {
    await db.drop();
  });

  it.each(GATEWAY_MIGRATIONS.slice(FIRST).map((m, i) => [m.name, FIRST + i] as const))(
    'is started again and finishes %s, wherever it was killed in it',
    async (_name, index) => {
      const migration = GATEWAY_MIGRATIONS[index];
      for (let stopAt = 1; ; stopAt++) {
        let whole = false;
        await startUpTo(db.url, index, async (ds) => {
          whole = await killInside(ds, migration, stopAt);
        });
        // Started again: it must finish, and roll back to try the next place it could be killed at.
        await startUpTo(db.url, index, async (ds) => {
          await expect(ds.runMigrations({ transaction: 'each' })).resolves.toEqual([
            expect.objectContaining({ name: migration.name }),
          ]);
          if (!whole) await ds.undoLastMigration({ transaction: 'each' });
        });
        if (whole) break;
      }
    },
  );

  it('leaves exactly the schema the entities describe', async () => {
    const ds = await openDatabase({ url: db.url });
    try {
      const pending = await ds.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((q) => q.query)).toEqual([]);
    } finally {
      await ds.destroy();
    }
  });
});
