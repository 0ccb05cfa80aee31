import { DataSource } from 'typeorm';
import { HotSql } from '@app/database/hot-sql';
import { RetentionService } from '@app/modules/retention/retention.service';
import { createKey, startTestGateway, TestGateway, toolBody } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, TestDatabase } from '@test/support/test-database';

/** Whether a statement reads `table` (named after FROM or JOIN, quoted or not). */
function reads(sql: string, table: string): boolean {
  return new RegExp(`\\b(FROM|JOIN)\\s+["\`]?${table}["\`]?(\\s|$)`, 'i').test(sql);
}

/** Tables that grow without bound (until retention), whose lists must never be read whole. */
const GROWING = ['tool_call_log', 'agent_session', 'hitl_request', 'agent_task', 'ai_tool', 'artifact'];

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
    gw = await startTestGateway(db.url, { ARTIFACTS_RETENTION_DAYS: '30', RETENTION_ENABLED: 'false' });
    const record = (sql: unknown, params: unknown) => {
      if (typeof sql === 'string' && /^\s*SELECT/i.test(sql) && GROWING.some((t) => reads(sql, t)))
        captured.push({ sql, params: Array.isArray(params) ? params : [] });
    };
    const hotAll = HotSql.prototype.all;
    jest.spyOn(HotSql.prototype, 'all').mockImplementation(function (this: HotSql, sql, params) {
      record(sql, params);
      return hotAll.call(this, sql, params);
    });
    // TypeORM's statements: every one passes its logger (which prints them only when logging is on).
    const logger = gw.app.get(DataSource).logger;
    const logQuery = logger.logQuery.bind(logger);
    jest.spyOn(logger, 'logQuery').mockImplementation((sql, params, runner) => {
      record(sql, params);
      return logQuery(sql, params, runner);
    });
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await gw?.close();
    await db?.drop();
  });

  it('tool calls by tenant, by tool, by session; sessions of all, by tenant, agent, status; tasks by tenant; the HITL queue; tool-name clashes; retention', async () => {
    const tenantAdmin = await createKey(gw, 'acme', 'admin');
    const lists: Array<[string, { Authorization: string }]> = [
      ['/api/v1/admin/tool-calls', tenantAdmin],
      ['/api/v1/admin/tool-calls?toolName=echo', tenantAdmin],
      ['/api/v1/admin/tool-calls?toolName=echo', gw.admin],
      ['/api/v1/admin/tool-calls?sessionId=s-1', gw.admin],
      ['/api/v1/admin/tool-calls?page=3', gw.admin],
      ['/api/v1/admin/sessions', tenantAdmin],
      ['/api/v1/admin/sessions?agentId=a-1', gw.admin],
      ['/api/v1/admin/sessions?agentId=a-1', tenantAdmin],
      ['/api/v1/admin/sessions?status=ACTIVE', gw.admin],
      ['/api/v1/admin/sessions?status=CLOSED', tenantAdmin],
      ['/api/v1/admin/sessions', gw.admin],
      ['/api/v1/admin/hitl', gw.admin],
      ['/api/v1/admin/hitl', tenantAdmin],
      ['/api/v1/admin/hitl?status=PENDING', gw.admin],
      ['/api/v1/admin/hitl?status=PENDING', tenantAdmin],
      ['/api/v1/admin/tasks', tenantAdmin],
    ];
    for (const [path, key] of lists) await gw.http.get(path).set(key).expect(200);
    // A platform-wide tool's name is checked against every tenant's.
    await gw.http
      .post('/api/v1/admin/tools')
      .set(gw.admin)
      .send(toolBody({ name: 'plan_probe' }))
      .expect(201);
    // Retention reads the oldest closed sessions and artifacts first.
    await gw.app.get(RetentionService).purge();

    const ds = gw.app.get(DataSource);
    const plans = await Promise.all(
      captured.map(async ({ sql, params }) => {
        const rows: Array<{ detail: string }> = await ds.query(`EXPLAIN QUERY PLAN ${sql}`, params);
        return { sql, plan: rows.map((r) => r.detail) };
      }),
    );
    const tables = new Set(plans.flatMap(({ sql }) => GROWING.filter((t) => reads(sql, t))));
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
