import { DataSource } from 'typeorm';
import { buildDataSourceOptions, DatabaseSettings, redactDatabaseUrl } from './database-options';

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
  const dataSource = new DataSource(buildDataSourceOptions(settings));
  try {
    await dataSource.initialize();
  } catch (err) {
    throw new DatabaseStartupError(
      `Cannot open the database at ${where}: ${(err as Error).message}. Check DATABASE_URL, that the server is running and that the user may connect.`,
    );
  }
  try {
    await dataSource.runMigrations({ transaction: 'each' });
  } catch (err) {
    await dataSource.destroy().catch(() => undefined);
    throw new DatabaseStartupError(
      `Migrating the database at ${where} failed: ${(err as Error).message}. The schema was left at the last migration that succeeded; fix the cause and start again.`,
    );
  }
  return dataSource;
}
