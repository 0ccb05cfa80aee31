import type { DataSource, EntityManager } from 'typeorm';

/**
 * Runs an INSERT/UPDATE/DELETE and returns the number of rows it changed, on every driver
 * (`DataSource.query` hides the count on SQLite). Inside a transaction pass its EntityManager.
 */
export async function runStatement(db: DataSource | EntityManager, sql: string, params: unknown[]): Promise<number> {
  const manager = 'manager' in db && !('queryRunner' in db) ? db.manager : (db as EntityManager);
  const own = manager.queryRunner ?? manager.connection.createQueryRunner();
  try {
    const result = await own.query(sql, params, true);
    return result.affected ?? 0;
  } finally {
    if (!manager.queryRunner) await own.release();
  }
}
