import type { DataSource } from 'typeorm';
import { openDatabase } from '@app/database/open-database';
import { HotSql } from '@app/database/hot-sql';
import { MAX_PREPARED_STATEMENTS_PER_CONNECTION } from '@app/database/database-options';
import {
  createTestDatabaseUrl,
  MYSQL_UNAVAILABLE_TODO,
  TEST_DIALECTS,
  TestDatabase,
} from '@test/support/test-database';

/**
 * HotSql runs its statements as server-side prepared statements, which mysql2 keeps per connection. Statements whose
 * text varies (a page's OFFSET, a batch's row count) are prepared once each: kept for good, one connection would hold
 * thousands, and the server refuses every client's next PREPARE once all of them hold max_prepared_stmt_count (16,382
 * by default, for the whole server).
 */
describe('HotSql on MariaDB: the prepared statements a connection holds on the server are bounded', () => {
  if (!TEST_DIALECTS.includes('mysql')) return it.todo(MYSQL_UNAVAILABLE_TODO);
  let db: TestDatabase;
  let ds: DataSource;

  beforeAll(async () => {
    db = await createTestDatabaseUrl('mysql');
    ds = await openDatabase({ url: db.url });
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('closes the least recently used once a connection holds its bound, however many texts it ran', async () => {
    const texts = MAX_PREPARED_STATEMENTS_PER_CONNECTION + 150;
    const held = await new HotSql(ds).transaction(async (tx) => {
      // One connection (the transaction's); each page of a listing is its own text (its OFFSET written in).
      for (let page = 0; page < texts; page++) {
        const rows = await tx.all(`SELECT id FROM config_version ORDER BY id LIMIT 1 OFFSET ${page}`, []);
        expect(rows).toHaveLength(page === 0 ? 1 : 0);
      }
      const status = await tx.manager.query<{ Variable_name: string; Value: string }[]>(
        "SHOW SESSION STATUS WHERE Variable_name IN ('Com_stmt_prepare', 'Com_stmt_close')",
      );
      const count = (name: string) => Number(status.find((s) => s.Variable_name === name)!.Value);
      return { prepared: count('Com_stmt_prepare'), closed: count('Com_stmt_close') };
    });
    expect(held.prepared).toBeGreaterThanOrEqual(texts);
    expect(held.prepared - held.closed).toBeLessThanOrEqual(MAX_PREPARED_STATEMENTS_PER_CONNECTION);
  });
});
