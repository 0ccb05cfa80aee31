import type { QueryRunner, TableColumn, TableIndex } from 'typeorm';

/**
 * Schema steps that do nothing when already done. MySQL commits each DDL statement at once (a migration's transaction
 * does not cover it), and a statement the server is running finishes even when the process that sent it is killed: a
 * start-up killed inside a migration, or between its last statement and its record in gateway_migrations, left steps
 * done that the next start ran again and failed on ('Duplicate key name'), every start after. With these steps the
 * next start finishes the migration. On SQLite a migration's transaction covers its DDL; the checks cost a read.
 */
export async function createIndexIfMissing(q: QueryRunner, table: string, index: TableIndex): Promise<void> {
  const found = (await q.getTable(table))?.indices.find((i) => i.name === index.name);
  if (!found) await q.createIndex(table, index);
}

export async function dropIndexIfPresent(q: QueryRunner, table: string, name: string): Promise<void> {
  const found = (await q.getTable(table))?.indices.find((i) => i.name === name);
  if (found) await q.dropIndex(table, found);
}

export async function addColumnIfMissing(q: QueryRunner, table: string, column: TableColumn): Promise<void> {
  if (!(await q.hasColumn(table, column.name))) await q.addColumn(table, column);
}

export async function dropColumnIfPresent(q: QueryRunner, table: string, name: string): Promise<void> {
  if (await q.hasColumn(table, name)) await q.dropColumn(table, name);
}
