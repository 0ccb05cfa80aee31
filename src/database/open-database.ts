import { DataSource, DataSourceOptions } from 'typeorm';
import { buildDataSourceOptions, DatabaseSettings, redactDatabaseUrl } from './database-options';
import { installSqliteGate } from './sqlite-gate';
import { applyLargeTextColumns } from './large-text.column';
import { holdingMigrationLock } from './migration-lock';

/** Start-up stops with this error when the database cannot be reached or migrated. */
export class DatabaseStartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseStartupError';
  }
}

/** Connects and runs pending migrations; any failure becomes one clear {@link DatabaseStartupError}. */
export async function openDatabase(settings: DatabaseSettings): Promise<DataSource> {
  const where = redactDatabaseUrl(settings.url);
  let dataSource = new DataSource(buildDataSourceOptions(settings));
  try {
    await dataSource.initialize();
    dataSource = await asMariaDbWhenItIs(dataSource);
    applyLargeTextColumns(dataSource);
  } catch (err) {
    throw new DatabaseStartupError(
      `Cannot open the database at ${where}: ${(err as Error).message}. Check DATABASE_URL, that the server is running and that the user may connect.`,
    );
  }
  installSqliteGate(dataSource);
  try {
    await holdingMigrationLock(dataSource, () => dataSource.runMigrations({ transaction: 'each' }));
  } catch (err) {
    await dataSource.destroy().catch(() => undefined);
    throw new DatabaseStartupError(
      `Migrating the database at ${where} failed: ${(err as Error).message}. The schema was left at the last migration that succeeded; fix the cause and start again.`,
    );
  }
  return dataSource;
}

/**
 * A `mysql://` URL may point at MariaDB (our test server). TypeORM reads MariaDB's catalog correctly only
 * with `type: 'mariadb'` (it reports nullable defaults differently), so reconnect with it; the SQL we send
 * is the same on both.
 */
async function asMariaDbWhenItIs(dataSource: DataSource): Promise<DataSource> {
  if (dataSource.options.type !== 'mysql') return dataSource;
  const [row] = await dataSource.query<Array<{ version?: unknown } | undefined>>('SELECT VERSION() AS version');
  if (!/mariadb/i.test(String(row?.version))) return dataSource;
  const options = { ...dataSource.options, type: 'mariadb' } as DataSourceOptions;
  await dataSource.destroy();
  return new DataSource(options).initialize();
}
