import type { DataSource } from 'typeorm';

/** One name per database on the server (a lock name may not pass 64 characters; a database name may be 64). */
const LOCK = "CONCAT('gateway_migrations:', SHA1(DATABASE()))";
const WAIT_SECONDS = 60;

/**
 * Runs `migrate` while this instance holds the database's migration lock (MySQL's GET_LOCK, held by one connection
 * until it releases it or closes). TypeORM takes no lock of its own: two instances starting together read the same
 * pending migrations and both ran them, and one failed its start-up on what the other had just done. An instance that
 * finds the lock held waits (as long as the other one migrates), then finds nothing left to run. MySQL only.
 */
export async function holdingMigrationLock<T>(dataSource: DataSource, migrate: () => Promise<T>): Promise<T> {
  if (dataSource.options.type === 'better-sqlite3') return migrate();
  const runner = dataSource.createQueryRunner();
  try {
    for (;;) {
      const rows = (await runner.query(`SELECT GET_LOCK(${LOCK}, ?) AS taken`, [WAIT_SECONDS])) as Array<{
        taken: unknown;
      }>;
      const taken = rows[0]?.taken;
      if (Number(taken) === 1) break;
      if (taken === null || taken === undefined) throw new Error('the migration lock (GET_LOCK) could not be taken');
    }
    try {
      return await migrate();
    } finally {
      // A release fails on a broken connection, whose end frees the lock: it must not hide what the migrations answered.
      await runner.query(`SELECT RELEASE_LOCK(${LOCK})`).catch(() => undefined);
    }
  } finally {
    await runner.release();
  }
}
