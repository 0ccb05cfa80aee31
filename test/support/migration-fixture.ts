import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '@app/database/database-options';
import { openDatabase } from '@app/database/open-database';
import { GATEWAY_MIGRATIONS } from '@migrations/index';
import { createTestDatabaseUrl, type TestDatabase, type TestDialect } from './test-database';

/** A database whose rows were stored before a migration, opened after it. */
export interface MigratedDatabase {
  db: TestDatabase;
  /** Opened as the gateway opens it: every migration has run. */
  ds: DataSource;
}

/**
 * For tests of a migration on data stored before it: a fresh database of `dialect` migrated up to `migration` (not
 * included), seeded by `seed` on that schema, then opened as the gateway opens it (the migration runs on the seed).
 */
export async function migratedOverSeed(
  dialect: TestDialect,
  migration: (typeof GATEWAY_MIGRATIONS)[number],
  seed: (old: DataSource) => Promise<void>,
): Promise<MigratedDatabase> {
  const db = await createTestDatabaseUrl(dialect);
  const before = GATEWAY_MIGRATIONS.slice(0, GATEWAY_MIGRATIONS.indexOf(migration));
  const old = new DataSource({ ...buildDataSourceOptions({ url: db.url }), migrations: before });
  await old.initialize();
  try {
    await old.runMigrations();
    await seed(old);
  } finally {
    await old.destroy();
  }
  return { db, ds: await openDatabase({ url: db.url }) };
}
