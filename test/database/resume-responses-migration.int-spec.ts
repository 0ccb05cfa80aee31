import { DataSource } from 'typeorm';
import { StoreResumeResponses1764461900000 } from '@migrations/1764461900000-StoreResumeResponses';
import { describeEachDialect, type TestDatabase } from '@test/support/test-database';
import { migratedOverSeed } from '@test/support/migration-fixture';

const MIGRATION = StoreResumeResponses1764461900000;
const STORED = JSON.stringify({ status: 'COMPLETED', results: [{ content: `a${'😀'.repeat(3)}b` }] });

describeEachDialect('migration StoreResumeResponses: answers stored as chunks before', (dialect) => {
  let db: TestDatabase;
  let ds: DataSource | undefined;

  beforeAll(async () => {
    ({ db, ds } = await migratedOverSeed(dialect, MIGRATION, async (old) => {
      const record =
        'INSERT INTO resume_record (session_id, client_message_id, state, response_chunks, created_at) VALUES (?, ?, ?, ?, ?)';
      await old.query(record, ['s-1', 'm-1', 'DONE', 2, 1]);
      await old.query(record, ['s-1', 'm-2', 'IN_PROGRESS', 0, 2]);
      const chunk = 'INSERT INTO tool_result_chunk (session_id, tool_call_id, seq, content) VALUES (?, ?, ?, ?)';
      // Stored out of order: seq decides.
      await old.query(chunk, ['s-1', 'resume:m-1', 1, STORED.slice(10)]);
      await old.query(chunk, ['s-1', 'resume:m-1', 0, STORED.slice(0, 10)]);
      await old.query(chunk, ['s-1', 'call-1', 1, 'a tool result continues']);
    }));
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('moves each stored answer into its record, byte for byte, and leaves tool result chunks alone', async () => {
    const records: Array<{ client_message_id: string; state: string; response: string | null }> = await ds!.query(
      'SELECT client_message_id, state, response FROM resume_record ORDER BY client_message_id',
    );
    expect(records).toEqual([
      { client_message_id: 'm-1', state: 'DONE', response: STORED },
      { client_message_id: 'm-2', state: 'IN_PROGRESS', response: null },
    ]);
    const chunks: Array<{ tool_call_id: string }> = await ds!.query('SELECT tool_call_id FROM tool_result_chunk');
    expect(chunks.map((c) => c.tool_call_id)).toEqual(['call-1']);
  });

  it('rolls back to chunks that join to the same answer', async () => {
    const runner = ds!.createQueryRunner();
    try {
      await new StoreResumeResponses1764461900000().down(runner);
    } finally {
      await runner.release();
    }
    const rows: Array<{ content: string }> = await ds!.query(
      "SELECT content FROM tool_result_chunk WHERE tool_call_id = 'resume:m-1' ORDER BY seq",
    );
    expect(rows.map((r) => r.content).join('')).toBe(STORED);
    const [record] = await ds!.query("SELECT response_chunks FROM resume_record WHERE client_message_id = 'm-1'");
    expect(Number(record.response_chunks)).toBe(rows.length);
  });
});
