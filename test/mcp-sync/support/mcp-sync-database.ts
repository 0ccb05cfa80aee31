import { DataSource, DataSourceOptions } from 'typeorm';
import { buildDataSourceOptions } from '@app/database/database-options';
import { McpServiceEntity } from '@app/modules/nacos-mcp-sync/mcp-service.entity';
import { McpSyncLeaseEntity } from '@app/modules/nacos-mcp-sync/mcp-sync-lease.entity';
import { CreateMcpServiceTables1764461100000 } from '@migrations/1764461100000-CreateMcpServiceTables';

/**
 * The gateway's TypeORM options with the MCP sync's entities and migration added when the shared lists do
 * not hold them yet (before the lead wires them into gateway-entities.ts and migrations/index.ts; after, a no-op).
 */
export function mcpSyncDataSourceOptions(url: string): DataSourceOptions {
  const options = buildDataSourceOptions({ url });
  const entities = [...(options.entities as Function[])];
  for (const entity of [McpServiceEntity, McpSyncLeaseEntity]) if (!entities.includes(entity)) entities.push(entity);
  const migrations = [...(options.migrations as Function[])];
  if (!migrations.some((m) => m.name === CreateMcpServiceTables1764461100000.name)) migrations.push(CreateMcpServiceTables1764461100000);
  return { ...options, entities, migrations } as DataSourceOptions;
}

/**
 * Opens and migrates a database as `openDatabase` does, with the MCP sync's schema included. A `mysql://` URL
 * that points at MariaDB is reopened as `mariadb` (TypeORM reads MariaDB's catalog right only that way).
 */
export async function openMcpSyncDatabase(url: string): Promise<DataSource> {
  let dataSource = await new DataSource(mcpSyncDataSourceOptions(url)).initialize();
  if (dataSource.options.type === 'mysql') {
    const [row] = await dataSource.query('SELECT VERSION() AS version');
    if (/mariadb/i.test(String(row?.version))) {
      const options = { ...dataSource.options, type: 'mariadb' } as DataSourceOptions;
      await dataSource.destroy();
      dataSource = await new DataSource(options).initialize();
    }
  }
  await dataSource.runMigrations({ transaction: 'each' });
  return dataSource;
}
