import { DataSource } from 'typeorm';
import { HotSql } from '@app/database/hot-sql';
import { HitlRequestsRepository } from '@app/modules/hitl/requests/hitl-requests.repository';
import { ResumeRecordRepository } from '@app/modules/loop-acting/acting/resume-record.repository';
import { ToolCallJournalRepository } from '@app/modules/loop-acting/journal/tool-call-journal.repository';
import { AgentTasksRepository } from '@app/modules/agent-runs/subagents/agent-tasks.repository';
import { RetentionRepository } from '@app/modules/retention/retention.repository';
import { startTestGateway, TestGateway } from '@test/support/gateway-test-app';
import { recordStatements } from '@test/support/statement-counter';
import { createTestDatabaseUrl, TestDatabase } from '@test/support/test-database';

/**
 * SQLite's plans for statements the scheduled jobs and the sub-agent tool run (not the admin lists: see
 * listing-plans.int-spec.ts), captured as the gateway sends them. A plan does not depend on the rows (no ANALYZE
 * runs), so an empty database shows what a table of a few hundred thousand rows would get.
 */
describe('routine statements read growing tables through an index (SQLite plans)', () => {
  let db: TestDatabase;
  let gw: TestGateway;

  beforeAll(async () => {
    db = await createTestDatabaseUrl('sqlite');
    gw = await startTestGateway(db.url, { RETENTION_ENABLED: 'false' });
  });

  afterAll(async () => {
    await gw?.close();
    await db?.drop();
  });

  /** The plan of each statement `work` sent, one detail line per step (unbound parameters plan as NULL). */
  async function plansOf(work: () => Promise<unknown>): Promise<Array<{ sql: string; plan: string[] }>> {
    const ds = gw.app.get(DataSource);
    const recording = recordStatements(ds, gw.app.get(HotSql));
    try {
      await work();
    } finally {
      recording.stop();
    }
    const statements = recording.statements.filter((sql) => /^\s*(SELECT|WITH|UPDATE|DELETE)/i.test(sql));
    expect(statements.length).toBeGreaterThan(0);
    return Promise.all(
      statements.map(async (sql) => {
        const params = new Array((sql.match(/\?/g) ?? []).length).fill(null);
        const rows: Array<{ detail: string }> = await ds.query(`EXPLAIN QUERY PLAN ${sql}`, params);
        return { sql, plan: rows.map((r) => r.detail) };
      }),
    );
  }

  it('the open-task count of a delegation tree (each sub-agent call) reads agent_task by parent, never whole', async () => {
    const plans = await plansOf(() => gw.app.get(AgentTasksRepository).openCountInTree('root-session'));
    const steps = plans.flatMap((p) => p.plan);
    expect(steps.filter((d) => /^SCAN t\b/.test(d))).toEqual([]);
    expect(steps.filter((d) => /^SEARCH t USING INDEX uq_agent_task_parent_call/.test(d))).toHaveLength(2);
  });

  it('the close recovery job reads the sessions above a pending approval by id, not every CLOSED session', async () => {
    const plans = await plansOf(() => gw.app.get(AgentTasksRepository).unclosedAboveApprovalsUnderClosed(100));
    const sessionReads = plans.flatMap((p) => p.plan).filter((d) => /^SEARCH [pc] /.test(d));
    expect(sessionReads).toEqual([
      expect.stringMatching(/^SEARCH p USING INDEX sqlite_autoindex_agent_session_1 \(id=\?\)$/),
      expect.stringMatching(/^SEARCH c USING INDEX sqlite_autoindex_agent_session_1 \(id=\?\)$/),
    ]);
  });

  it("the retention walk's next page starts at its cursor in the index, not at the oldest closed session", async () => {
    const cursor = { updatedAt: 1_000, id: 'session-after' };
    const plans = await plansOf(() => gw.app.get(RetentionRepository).closedSessionsBefore(Date.now(), 100, cursor));
    expect(plans.map((p) => p.plan)).toEqual([
      [
        'SEARCH agent_session USING INDEX idx_agent_session_status_updated (status=? AND updated_at>? AND updated_at<?)',
        'USE TEMP B-TREE FOR LAST TERM OF ORDER BY',
      ],
    ]);
  });

  it('the idle-session walk (SESSION_IDLE_CLOSE_DAYS) reads each status as one range of the index, in its order', async () => {
    const retention = gw.app.get(RetentionRepository);
    const cursor = { updatedAt: 1_000, id: 'session-after' };
    for (const status of ['ACTIVE', 'INTERRUPTED'] as const) {
      const plans = await plansOf(() => retention.idleSessionsBefore(status, Date.now(), 100, cursor));
      expect(plans.map((p) => p.plan)).toEqual([
        [
          'SEARCH agent_session USING INDEX idx_agent_session_status_updated (status=? AND updated_at>? AND updated_at<?)',
          'USE TEMP B-TREE FOR LAST TERM OF ORDER BY',
        ],
      ]);
    }
  });

  it('the lease renewal of calls in flight finds each by its primary key, not by walking every STARTED entry', async () => {
    const claims = ['call-1', 'call-2', 'call-3', 'call-4', 'call-5'].map((toolCallId) => ({
      tenantId: 'acme',
      sessionId: 's-1',
      toolCallId,
      owner: 'claim-token',
    }));
    const plans = await plansOf(() => gw.app.get(ToolCallJournalRepository).renewLeases(claims, Date.now()));
    const reads = plans.flatMap((p) => p.plan).filter((d) => /^SEARCH|^SCAN/.test(d));
    const byKey =
      /USING INDEX sqlite_autoindex_tool_call_journal_1 \(tenant_id=\? AND session_id=\? AND tool_call_id=\?\)$/;
    expect(reads).toEqual(claims.map(() => expect.stringMatching(byKey)));
  });

  it('the abandoned-decision recovery starts from the stale claims in progress, not every decided request', async () => {
    const plans = await plansOf(() => gw.app.get(ResumeRecordRepository).findAbandonedDecisions(Date.now(), 20));
    const steps = plans.flatMap((p) => p.plan);
    expect(steps[0]).toMatch(/^SEARCH r USING INDEX idx_resume_record_claim \(state=\? AND created_at<\?\)$/);
    expect(steps.slice(1).filter((d) => /\(status=\?\)$|^SCAN/.test(d))).toEqual([]);
  });

  it("a resume finds its session's decided request through the session, not through every DECIDED request", async () => {
    const requests = gw.app.get(HitlRequestsRepository);
    const plans = await plansOf(async () => {
      await requests.findDecidedUnder('s-1', 'message-1');
      await requests.findLatestDecidedFor('s-1', 'call-1');
    });
    expect(plans).toHaveLength(2);
    for (const { plan } of plans)
      expect(plan.filter((d) => /^SEARCH|^SCAN/.test(d))).toEqual([
        expect.stringMatching(/^SEARCH \w+ USING INDEX idx_hitl_request_session \(session_id=\? AND status=\?\)$/),
      ]);
  });
});
