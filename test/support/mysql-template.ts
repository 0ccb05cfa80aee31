import { randomBytes } from 'node:crypto';
import type { RowDataPacket } from 'mysql2';
import { createConnection } from 'mysql2/promise';
import { openDatabase } from '@app/database/open-database';

/**
 * A migrated schema on the test server that suites' databases are copied from: every migration run once per Jest
 * run (in the global setup) instead of once per suite. On MariaDB the migrations take seconds per suite on a
 * loaded 2-core machine; a copy (CREATE TABLE ... LIKE and INSERT ... SELECT, the tables have no foreign keys)
 * takes a fraction. The gateway started on a copy finds every migration applied. Suites that test migrations
 * themselves start from an empty database (`createTestDatabaseUrl` without `migrated`).
 */
export async function createMysqlTemplate(serverUrl: string): Promise<string> {
  const name = `gw_template_${randomBytes(6).toString('hex')}`;
  await createMysqlSchema(serverUrl, name);
  const dataSource = await openDatabase({ url: databaseUrl(serverUrl, name) });
  await dataSource.destroy();
  return name;
}

/** Copies the template's tables and rows into the existing, empty database `target`. */
export async function copyMysqlTemplate(serverUrl: string, template: string, target: string): Promise<void> {
  await onServer(serverUrl, async (c) => {
    const [tables] = await c.query<Array<{ name: string } & RowDataPacket>>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE'",
      [template],
    );
    if (tables.length === 0) throw new Error(`the test template database ${template} has no tables`);
    // A FULLTEXT index takes its stopword setting from the session that creates it: as the migration made it.
    await c.query('SET SESSION innodb_ft_enable_stopword = OFF');
    for (const { name } of tables) {
      await c.query(`CREATE TABLE \`${target}\`.\`${name}\` LIKE \`${template}\`.\`${name}\``);
      await c.query(`INSERT INTO \`${target}\`.\`${name}\` SELECT * FROM \`${template}\`.\`${name}\``);
    }
  });
}

/** An empty utf8mb4 database `name`, with the server's default collation for the gateway's tables. */
export async function createMysqlSchema(serverUrl: string, name: string): Promise<void> {
  await onServer(serverUrl, (c) =>
    c.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`),
  );
}

export async function dropMysqlDatabase(serverUrl: string, name: string): Promise<void> {
  await onServer(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS \`${name}\``));
}

/** `serverUrl` with the database `name` as its path. */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function onServer<T>(
  serverUrl: string,
  work: (c: Awaited<ReturnType<typeof createConnection>>) => Promise<T>,
): Promise<T> {
  const connection = await createConnection(serverUrl);
  try {
    return await work(connection);
  } finally {
    await connection.end();
  }
}
