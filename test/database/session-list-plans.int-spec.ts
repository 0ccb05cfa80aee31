import { DataSource } from 'typeorm';
import { HotSql } from '@app/database/hot-sql';
import { openDatabase } from '@app/database/open-database';
import { AgentSessionRepository } from '@app/modules/loop-acting/sessions/agent-session.repository';
import { recordStatements } from '@test/support/statement-counter';
import {
  createTestDatabaseUrl,
  MYSQL_UNAVAILABLE_TODO,
  TEST_DIALECTS,
  TestDatabase,
} from '@test/support/test-database';

const SESSIONS = 10_000;

/**
 * MariaDB's plans for GET /admin/sessions (SQLite's: listing-plans.int-spec.ts): each page read through an index in
 * its order, never a sort of every matching session. MariaDB plans by its statistics, so the table holds ten
 * thousand sessions (30 tenants, 60 agents) and is analyzed first.
 */
describe('admin session lists on MariaDB: a page is read in index order, not sorted from every session', () => {
  if (!TEST_DIALECTS.includes('mysql')) return it.todo(MYSQL_UNAVAILABLE_TODO);
  let db: TestDatabase;
  let ds: DataSource;

  beforeAll(async () => {
    db = await createTestDatabaseUrl('mysql');
    ds = await openDatabase({ url: db.url });
    await ds.query(
      `INSERT INTO agent_session (id, tenant_id, agent_id, user_id, permissions, capabilities, status, iteration,
         iteration_budget, hitl_pending, todo_list, lock_version, created_at, updated_at)
       WITH d (v) AS (SELECT 0 UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4
                       UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)
       SELECT CONCAT('s-', i), CONCAT('t-', i % 30), CONCAT('a-', i % 60), 'u', '[]', '[]',
              ELT(1 + i % 4, 'CLOSED', 'ACTIVE', 'INTERRUPTED', 'CLOSED'), 0, 10, 0, '[]', 1, 1000 + i % 500, 1000 + i
         FROM (SELECT a.v + 10 * b.v + 100 * c.v + 1000 * e.v AS i FROM d a, d b, d c, d e) n WHERE i < ${SESSIONS}`,
    );
    await ds.query('ANALYZE TABLE agent_session');
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('the whole list, by tenant, by agent, by status', async () => {
    const hotSql = new HotSql(ds);
    const sessions = new AgentSessionRepository(ds, hotSql);
    const recording = recordStatements(ds, hotSql);
    try {
      for (const filter of [{}, { tenantId: 't-3' }, { agentId: 'a-7' }, { status: 'ACTIVE' as const }])
        await sessions.list({ ...filter, skip: 0, take: 50 });
    } finally {
      recording.stop();
    }
    const pages = recording.statements.filter((sql) => /^SELECT .* ORDER BY/.test(sql));
    expect(pages).toHaveLength(4);
    const sorted: Array<{ sql: string; extra: string[] }> = [];
    for (const sql of pages) {
      const column = /WHERE (\w+) = \?/.exec(sql)?.[1];
      const params = column ? [{ tenant_id: 't-3', agent_id: 'a-7', status: 'ACTIVE' }[column]] : [];
      const rows: Array<{ Extra: string | null }> = await ds.query(`EXPLAIN ${sql}`, params);
      const extra = rows.map((r) => r.Extra ?? '');
      if (extra.some((e) => e.includes('Using filesort'))) sorted.push({ sql, extra });
    }
    expect(sorted).toEqual([]);
  });
});
