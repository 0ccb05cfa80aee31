import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '@app/database/database-options';
import { DatabaseStartupError, openDatabase } from '@app/database/open-database';
import { GATEWAY_MIGRATIONS } from '@migrations/index';
import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';

describeEachDialect('migrations', (dialect) => {
  let db: TestDatabase;
  let dataSource: DataSource | undefined;

  beforeAll(async () => {
    db = await createTestDatabaseUrl(dialect);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db.drop();
  });

  it('migrate an empty database to exactly the schema the entities describe', async () => {
    dataSource = await openDatabase({ url: db.url });
    const pending = await dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('are recorded, so a second start runs none of them again', async () => {
    const again = await openDatabase({ url: db.url });
    try {
      const rows: Array<{ name: string }> = await again.query('SELECT name FROM gateway_migrations ORDER BY id');
      expect(rows.map((r) => r.name)).toEqual(GATEWAY_MIGRATIONS.map((m) => m.name));
      expect(await again.showMigrations()).toBe(false);
    } finally {
      await again.destroy();
    }
  });

  it('roll back cleanly, table by table', async () => {
    const scratch = await createTestDatabaseUrl(dialect);
    const ds = new DataSource(buildDataSourceOptions({ url: scratch.url }));
    try {
      await ds.initialize();
      await ds.runMigrations();
      for (let i = 0; i < GATEWAY_MIGRATIONS.length; i++) await ds.undoLastMigration();
      const tables = await ds.createQueryRunner().getTables(['ai_tool', 'agent', 'tool_call_journal']);
      expect(tables).toEqual([]);
    } finally {
      await ds.destroy();
      await scratch.drop();
    }
  });
});

describe('openDatabase', () => {
  it('stops with a clear message when the database cannot be reached', async () => {
    const attempt = openDatabase({ url: 'mysql://nobody:secret-pw@127.0.0.1:1/none' });
    await expect(attempt).rejects.toBeInstanceOf(DatabaseStartupError);
    await expect(attempt).rejects.toThrow(
      /Cannot open the database at mysql:\/\/nobody:\*\*\*@127\.0\.0\.1:1\/none: .*Check DATABASE_URL/,
    );
    await expect(attempt).rejects.not.toThrow(/secret-pw/);
  });
});
