import { DataSource } from 'typeorm';
import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';
import { CreateMcpServiceTables1764461100000 } from '@migrations/1764461100000-CreateMcpServiceTables';
import { mcpSyncDataSourceOptions, openMcpSyncDatabase } from './support/mcp-sync-database';

describeEachDialect('mcp_service and mcp_sync_lease migration', (dialect) => {
  let db: TestDatabase;
  let dataSource: DataSource | undefined;

  beforeAll(async () => {
    db = await createTestDatabaseUrl(dialect);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db.drop();
  });

  it('creates exactly the schema the entities describe', async () => {
    dataSource = await openMcpSyncDatabase(db.url);
    const pending = await dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('rolls back to no MCP tables', async () => {
    const scratch = await createTestDatabaseUrl(dialect);
    const ds = new DataSource(mcpSyncDataSourceOptions(scratch.url));
    try {
      await ds.initialize();
      await ds.runMigrations();
      // Undo down to (and including) this migration, whatever the shared index lists after it.
      const applied = async () => (await ds.query('SELECT name FROM gateway_migrations')).map((r: { name: string }) => r.name);
      while ((await applied()).includes(CreateMcpServiceTables1764461100000.name)) await ds.undoLastMigration();
      expect(await ds.createQueryRunner().getTables(['mcp_service', 'mcp_sync_lease'])).toEqual([]);
      expect(await ds.createQueryRunner().getTables(['ai_tool'])).toHaveLength(1);
    } finally {
      await ds.destroy();
      await scratch.drop();
    }
  });
});
