import { DataSource } from 'typeorm';
import { AddAgentMessageReasoning1764464800000 } from '@migrations/1764464800000-AddAgentMessageReasoning';
import { type TestDatabase } from '@test/support/test-database';
import { migratedOverSeed } from '@test/support/migration-fixture';

const MESSAGES = 200;
const CONTENT = `${'長い文😀'.repeat(1000)}end`;

async function pages(ds: DataSource): Promise<{ used: number; total: number }> {
  const [{ page_count: total }] = await ds.query<Array<{ page_count: number }>>('PRAGMA page_count');
  const [{ freelist_count: free }] = await ds.query<Array<{ freelist_count: number }>>('PRAGMA freelist_count');
  return { used: total - free, total };
}

/**
 * On SQLite, TypeORM's addColumn rebuilds the table (a copy of every row, in one transaction). agent_message holds
 * every conversation in full: the first start of the upgrade copied all of it, needing as much free disk again and
 * holding the file's write lock for the copy (the other processes sharing the file waited, then failed).
 */
describe('migration AddAgentMessageReasoning on a SQLite database with months of messages', () => {
  let db: TestDatabase;
  let ds: DataSource | undefined;
  let before: { used: number; total: number };

  beforeAll(async () => {
    ({ db, ds } = await migratedOverSeed('sqlite', AddAgentMessageReasoning1764464800000, async (old) => {
      const insert =
        'INSERT INTO agent_message (id, session_id, seq, tenant_id, run_id, role, content, tool_calls, tool_call_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
      for (let i = 0; i < MESSAGES; i++) {
        await old.query(insert, [`m-${i}`, 's-1', i, 't', 'r-1', 'user', i % 2 ? CONTENT : null, null, null, i]);
      }
      await old.query('PRAGMA wal_checkpoint(TRUNCATE)');
      before = await pages(old);
    }));
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('adds the column in place: every message kept, the table not copied', async () => {
    const rows: Array<{ content: string | null; reasoning: string | null }> = await ds!.query(
      'SELECT content, reasoning FROM agent_message ORDER BY seq',
    );
    expect(rows).toHaveLength(MESSAGES);
    expect(rows.every((r, i) => r.content === (i % 2 ? CONTENT : null) && r.reasoning === null)).toBe(true);
    await ds!.query('PRAGMA wal_checkpoint(TRUNCATE)');
    // A copy writes every page of the table again: the file grows by the table's size. The other migrations of the
    // upgrade add indexes to empty tables (a few pages).
    const after = await pages(ds!);
    expect(after.total - before.total).toBeLessThan(before.used / 10);
  });
});
