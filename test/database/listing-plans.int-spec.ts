import { DataSource } from 'typeorm';
import { BetterSqlite3QueryRunner } from 'typeorm/driver/better-sqlite3/BetterSqlite3QueryRunner';
import { HotSql } from '@app/database/hot-sql';
import { createKey, startTestGateway, TestGateway } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, TestDatabase } from '@test/support/test-database';

/** Tables that grow without bound (until retention), whose lists must never be read whole. */
const GROWING = ['tool_call_log', 'agent_session', 'hitl_request'];

/**
 * The admin lists' statements, captured as the gateway sends them, and SQLite's plan for each: walked through an
 * index in their order and stopped at their page, never a scan of a growing table nor a sort of all its matching
 * rows (what they did before AddListingIndexes: 0.5-0.8 s at a few hundred thousand rows).
 */
describe('admin lists read growing tables through an index, in order (SQLite plans)', () => {
  let db: TestDatabase;
  let gw: TestGateway;
  const captured: Array<{ sql: string; params: unknown[] }> = [];

  beforeAll(async () => {
    db = await createTestDatabaseUrl('sqlite');
    gw = await startTestGateway(db.url);
    const record = (sql: unknown, params: unknown) => {
      if (typeof sql === 'string' && /^\s*SELECT/i.test(sql) && GROWING.some((t) => sql.includes(t)))
        captured.push({ sql, params: Array.isArray(params) ? params : [] });
    };
    const hotAll = HotSql.prototype.all;
    jest.spyOn(HotSql.prototype, 'all').mockImplementation(function (this: HotSql, sql, params) {
      record(sql, params);
      return hotAll.call(this, sql, params);
    });
    const query = BetterSqlite3QueryRunner.prototype.query;
    jest.spyOn(BetterSqlite3QueryRunner.prototype, 'query').mockImplementation(function (
      this: BetterSqlite3QueryRunner,
      ...args: Parameters<typeof query>
    ) {
      record(args[0], args[1]);
      return query.apply(this, args);
    });
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await gw?.close();
    await db?.drop();
  });

  it('tool calls by tenant, by tool, by session; sessions by tenant; the HITL queue', async () => {
    const tenantAdmin = await createKey(gw, 'acme', 'admin');
    const lists: Array<[string, { Authorization: string }]> = [
      ['/api/v1/admin/tool-calls', tenantAdmin],
      ['/api/v1/admin/tool-calls?toolName=echo', tenantAdmin],
      ['/api/v1/admin/tool-calls?sessionId=s-1', gw.admin],
      ['/api/v1/admin/tool-calls?page=3', gw.admin],
      ['/api/v1/admin/sessions', tenantAdmin],
      ['/api/v1/admin/hitl', gw.admin],
      ['/api/v1/admin/hitl', tenantAdmin],
    ];
    for (const [path, key] of lists) await gw.http.get(path).set(key).expect(200);

    const ds = gw.app.get(DataSource);
    const plans = await Promise.all(
      captured.map(async ({ sql, params }) => {
        const rows: Array<{ detail: string }> = await ds.query(`EXPLAIN QUERY PLAN ${sql}`, params);
        return { sql, plan: rows.map((r) => r.detail) };
      }),
    );
    const tables = new Set(plans.flatMap(({ sql }) => GROWING.filter((t) => sql.includes(t))));
    expect([...tables].sort()).toEqual([...GROWING].sort());
    const unindexed = plans
      .map(({ sql, plan }) => ({
        sql,
        wholeTable: plan.filter((d) => /^SCAN \w+$/.test(d) || /^SCAN \w+ (?!USING)/.test(d)),
        sortsAll: plan.filter((d) => d === 'USE TEMP B-TREE FOR ORDER BY'),
      }))
      .filter((p) => p.wholeTable.length > 0 || p.sortsAll.length > 0);
    expect(unindexed).toEqual([]);
  });
});
