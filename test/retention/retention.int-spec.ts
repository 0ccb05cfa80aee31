import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { SchedulerRegistry } from '@nestjs/schedule';
import { RETENTION_JOB } from '@app/modules/retention/retention.job';
import { RetentionService } from '@app/modules/retention/retention.service';
import { RetentionRepository } from '@app/modules/retention/retention.repository';
import { SessionsService } from '@app/modules/loop-acting/sessions/sessions.service';
import { WorkspaceLocator } from '@app/modules/workspace/workspace.locator';
import { ArtifactsService } from '@app/modules/workspace/artifacts.service';
import { ArtifactOrphanSweeper } from '@app/modules/workspace/artifact-orphan.sweeper';
import { SkillReleaseMaterializer } from '@app/modules/skills/skill-release.materializer';
import { GATEWAY_CONFIG, type GatewayConfig } from '@app/config/gateway-config';
import { startTestGateway, type TestGateway } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, describeEachDialect, type TestDatabase } from '@test/support/test-database';
import { waitFor } from '@test/support/wait-for';

const DAY = 24 * 60 * 60 * 1000;
const TENANT = 'acme';

/** Inserts rows the way the gateway stores them, backdated as a test needs (no API can write the past). */
class RetentionSeed {
  constructor(private readonly db: DataSource) {}

  /** A session with its children: journal entries, result chunks, a resume record, HITL requests, tool-log rows. */
  async session(opts: {
    status: string;
    updatedAt: number;
    journal?: Array<{ state: string }>;
    hitl?: Array<{ status: string }>;
    chunks?: number;
  }): Promise<string> {
    const id = randomUUID();
    // Children first, the session row last: a retention run between the inserts never sees an empty closed session.
    const journal = opts.journal ?? [{ state: 'COMPLETED' }];
    // A STARTED call's owner is alive: one a dead owner left in a closed session is ended by the journal sweep.
    const lease = (state: string) => (state === 'STARTED' ? Date.now() + 3_600_000 : opts.updatedAt);
    for (let i = 0; i < journal.length; i += 200) {
      const rows = journal
        .slice(i, i + 200)
        .map((j, k) => [
          TENANT,
          id,
          `call_${i + k}`,
          'lookup',
          null,
          'f'.repeat(64),
          '{}',
          'READ_ONLY',
          j.state,
          j.state === 'STARTED' ? null : 'COMPLETED',
          1,
          1,
          'gw-1',
          lease(j.state),
          opts.updatedAt,
          null,
          null,
          0,
          null,
          'ok',
          2,
          0,
          20000,
        ]);
      await this.db.query(
        'INSERT INTO tool_call_journal (tenant_id, session_id, tool_call_id, tool_name, tool_id, fingerprint, arguments_json, side_effect, state, result_status, attempts, iteration, owner, lease_expires_at, started_at, finished_at, duration_ms, is_error, error_class, content, total_chars, result_chunks, inline_limit) VALUES ' +
          rows.map(() => `(${Array(23).fill('?').join(', ')})`).join(', '),
        rows.flat(),
      );
    }
    const chunks = Array.from({ length: opts.chunks ?? 2 }, (_, seq) => [id, 'call_0', seq, 'x'.repeat(100)]);
    for (let i = 0; i < chunks.length; i += 200) {
      const rows = chunks.slice(i, i + 200);
      await this.db.query(
        `INSERT INTO tool_result_chunk (session_id, tool_call_id, seq, content) VALUES ${rows.map(() => '(?, ?, ?, ?)').join(', ')}`,
        rows.flat(),
      );
    }
    await this.db.query(
      'INSERT INTO resume_record (session_id, client_message_id, state, response, created_at) VALUES (?, ?, ?, ?, ?)',
      [id, 'm-1', 'DONE', '{"status":"COMPLETED","results":[]}', opts.updatedAt],
    );
    for (const h of opts.hitl ?? [{ status: 'DECIDED' }]) {
      await this.db.query(
        'INSERT INTO hitl_request (id, tenant_id, session_id, agent_id, request_type, tool_name, tool_call_id, fingerprint, prompt_message, tool_params, trigger_reason, iteration, status, decision, decision_message, decided_by, decided_at, client_message_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [
          randomUUID(),
          TENANT,
          id,
          'agent-1',
          'TOOL_APPROVAL',
          'lookup',
          'call_0',
          null,
          'Approve?',
          '{}',
          'policy',
          1,
          h.status,
          h.status === 'PENDING' ? null : 'APPROVE',
          null,
          null,
          null,
          null,
          opts.updatedAt,
        ],
      );
    }
    await this.toolLog(id, opts.updatedAt);
    await this.toolLog(id, opts.updatedAt);
    await this.agentLoopRows(id, opts.updatedAt);
    await this.events(id, opts.updatedAt);
    await this.db.query(
      'INSERT INTO agent_session (id, tenant_id, agent_id, user_id, permissions, capabilities, status, iteration, iteration_budget, hitl_pending, hitl_request, pending_batch, todo_list, active_skill, lock_version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [
        id,
        TENANT,
        'agent-1',
        'u1',
        '[]',
        '[]',
        opts.status,
        1,
        10,
        0,
        null,
        null,
        '[]',
        null,
        1,
        opts.updatedAt - DAY,
        opts.updatedAt,
      ],
    );
    return id;
  }

  /** A finished run of the gateway's own loop with one message, and a task the session delegated. */
  async agentLoopRows(sessionId: string, at: number): Promise<void> {
    const runId = randomUUID();
    await this.db.query(
      'INSERT INTO agent_run (id, tenant_id, session_id, agent_id, client_message_id, status, iterations, act_iteration, lease_until, not_before, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [runId, TENANT, sessionId, 'agent-1', 'm1', 'COMPLETED', 1, 1, 0, 0, at, at],
    );
    await this.db.query(
      'INSERT INTO agent_message (id, session_id, seq, tenant_id, run_id, role, content, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      [randomUUID(), sessionId, 1, TENANT, runId, 'user', 'hello', at],
    );
    await this.db.query(
      'INSERT INTO agent_task (id, tenant_id, parent_session_id, parent_tool_call_id, parent_agent_id, agent_id, agent_name, child_session_id, child_run_id, depth, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [randomUUID(), TENANT, sessionId, 'c1', 'agent-1', 'agent-2', 'helper', randomUUID(), randomUUID(), 1, at],
    );
  }

  /** A written event, and one the outbox round gave up on (kept in session_event_outbox). */
  async events(sessionId: string, at: number): Promise<void> {
    await this.db.query(
      'INSERT INTO session_event (session_id, seq, tenant_id, type, at, data, once_key) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [sessionId, 1, TENANT, 'message', at, '{}', null],
    );
    await this.db.query(
      'INSERT INTO session_event_outbox (id, session_id, tenant_id, type, at, data, once_key, attempts, retry_at, given_up_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [randomUUID(), sessionId, TENANT, 'run.finished', at, '{"unparsable":', `outbox:${randomUUID()}`, 8, at, at],
    );
  }

  async toolLog(sessionId: string | null, createdAt: number): Promise<string> {
    const id = randomUUID();
    await this.db.query(
      'INSERT INTO tool_call_log (id, tenant_id, session_id, agent_id, user_id, tool_call_id, tool_id, tool_name, status, entry, arguments_redacted, attempts, duration_ms, error_class, result_chars, result_preview, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [
        id,
        TENANT,
        sessionId,
        'agent-1',
        'u1',
        'call_0',
        null,
        'lookup',
        'COMPLETED',
        sessionId ? 'ACT' : 'DIRECT',
        '{}',
        1,
        3,
        null,
        2,
        'ok',
        createdAt,
      ],
    );
    return id;
  }

  /** Rows left per table for a session. */
  async left(sessionId: string): Promise<Record<string, number>> {
    const count = async (table: string) =>
      Number((await this.db.query(`SELECT COUNT(*) AS n FROM ${table} WHERE session_id = ?`, [sessionId]))[0].n);
    const [session] = await this.db.query('SELECT COUNT(*) AS n FROM agent_session WHERE id = ?', [sessionId]);
    return {
      session: Number(session.n),
      journal: await count('tool_call_journal'),
      chunks: await count('tool_result_chunk'),
      resume: await count('resume_record'),
      hitl: await count('hitl_request'),
      toolLog: await count('tool_call_log'),
      runs: await count('agent_run'),
      messages: await count('agent_message'),
      events: await count('session_event'),
      keptEvents: await count('session_event_outbox'),
      tasks: Number(
        (await this.db.query('SELECT COUNT(*) AS n FROM agent_task WHERE parent_session_id = ?', [sessionId]))[0].n,
      ),
    };
  }

  async toolLogExists(id: string): Promise<boolean> {
    return Number((await this.db.query('SELECT COUNT(*) AS n FROM tool_call_log WHERE id = ?', [id]))[0].n) === 1;
  }
}

describeEachDialect('retention (RETENTION_DAYS) of closed sessions and the tool log', (dialect) => {
  let db: TestDatabase;
  let gw: TestGateway;
  let seed: RetentionSeed;
  const now = Date.now();
  const old = now - 31 * DAY;
  const recent = now - 29 * DAY;
  const everything = {
    session: 1,
    journal: 1,
    chunks: 2,
    resume: 1,
    hitl: 1,
    toolLog: 2,
    runs: 1,
    messages: 1,
    events: 1,
    keptEvents: 1,
    tasks: 1,
  };
  const nothing = {
    session: 0,
    journal: 0,
    chunks: 0,
    resume: 0,
    hitl: 0,
    toolLog: 0,
    runs: 0,
    messages: 0,
    events: 0,
    keptEvents: 0,
    tasks: 0,
  };

  beforeAll(async () => {
    db = await createTestDatabaseUrl(dialect);
    gw = await startTestGateway(db.url, {
      RETENTION_DAYS: '30',
      RETENTION_ENABLED: 'true',
      RETENTION_INTERVAL_MS: '1000',
    });
    seed = new RetentionSeed(gw.app.get(DataSource));
  });
  afterAll(async () => {
    await gw?.close();
    await db?.drop();
  });

  it('the scheduled job deletes what is due, in batches, and keeps everything else', async () => {
    expect(gw.app.get(SchedulerRegistry).doesExist('interval', RETENTION_JOB)).toBe(true);
    const closedOld = await seed.session({
      status: 'CLOSED',
      updatedAt: old,
      journal: Array.from({ length: 1_201 }, () => ({ state: 'COMPLETED' })),
      chunks: 1_100,
    });
    const closedWithStarted = await seed.session({
      status: 'CLOSED',
      updatedAt: old,
      journal: [{ state: 'COMPLETED' }, { state: 'STARTED' }],
    });
    const closedWithPending = await seed.session({
      status: 'CLOSED',
      updatedAt: old,
      hitl: [{ status: 'DECIDED' }, { status: 'PENDING' }],
    });
    const closedRecently = await seed.session({ status: 'CLOSED', updatedAt: recent });
    const activeOld = await seed.session({ status: 'ACTIVE', updatedAt: old });
    const interruptedOld = await seed.session({ status: 'INTERRUPTED', updatedAt: old, hitl: [{ status: 'PENDING' }] });
    const directOld = await seed.toolLog(null, old);
    const directRecent = await seed.toolLog(null, recent);

    await waitFor(async () => (await seed.left(closedOld)).session === 0, { timeoutMs: 15_000 });
    await waitFor(async () => !(await seed.toolLogExists(directOld)), { timeoutMs: 5_000 });

    expect(await seed.left(closedOld)).toEqual(nothing);
    // A STARTED entry (the call may have run: a human must see it) and a PENDING request keep their session.
    expect(await seed.left(closedWithStarted)).toEqual({ ...nothing, session: 1, journal: 1 });
    const [started] = await gw.app
      .get(DataSource)
      .query('SELECT state FROM tool_call_journal WHERE session_id = ?', [closedWithStarted]);
    expect(started.state).toBe('STARTED');
    expect(await seed.left(closedWithPending)).toEqual({ ...nothing, session: 1, journal: 0, hitl: 1 });
    expect(await seed.left(closedRecently)).toEqual(everything);
    expect(await seed.left(activeOld)).toEqual(everything);
    expect(await seed.left(interruptedOld)).toEqual(everything);
    expect(await seed.toolLogExists(directRecent)).toBe(true);
  });

  it('a run with nothing due deletes nothing and reports the closed sessions it keeps', async () => {
    const retention = gw.app.get(RetentionService);
    await retention.purge();
    const report = await retention.purge();
    expect(report).toMatchObject({
      sessions: 0,
      journalEntries: 0,
      resultChunks: 0,
      resumeRecords: 0,
      hitlRequests: 0,
      toolLogRows: 0,
      agentRunRows: 0,
      sessionsKept: 2,
    });
  });
});

describeEachDialect('retention walks past closed sessions it must keep', (dialect) => {
  let db: TestDatabase;
  let gw: TestGateway;
  let seed: RetentionSeed;
  const now = Date.now();

  beforeAll(async () => {
    db = await createTestDatabaseUrl(dialect);
    gw = await startTestGateway(db.url, { RETENTION_DAYS: '30', RETENTION_ENABLED: 'false' });
    seed = new RetentionSeed(gw.app.get(DataSource));
  });
  afterAll(async () => {
    await gw?.close();
    await db?.drop();
  });

  it('reaches a newer purgeable session although more kept ones are older than one run reads', async () => {
    // 2 batches of 2 sessions a run (100 of 100 by default): 5 older sessions kept by a STARTED call fill a run.
    const retention = new RetentionService(
      gw.app.get(RetentionRepository),
      gw.app.get(WorkspaceLocator),
      gw.app.get(ArtifactsService),
      gw.app.get(ArtifactOrphanSweeper),
      gw.app.get(SkillReleaseMaterializer),
      gw.app.get(SessionsService),
      gw.app.get<GatewayConfig>(GATEWAY_CONFIG),
      { sessionsPerBatch: 2, batchesPerRun: 2 },
    );
    const kept: string[] = [];
    for (let i = 0; i < 5; i++)
      kept.push(
        await seed.session({ status: 'CLOSED', updatedAt: now - 40 * DAY + i, journal: [{ state: 'STARTED' }] }),
      );
    const due = await seed.session({ status: 'CLOSED', updatedAt: now - 35 * DAY });

    const reports = [];
    for (let run = 0; run < 3; run++) reports.push(await retention.purge(now));

    expect((await seed.left(due)).session).toBe(0);
    expect(reports.reduce((n, r) => n + r.sessions, 0)).toBe(1);
    for (const id of kept) expect((await seed.left(id)).session).toBe(1);
    // Past the newest, the next runs start again from the oldest: a kept session is checked again later.
    expect(reports.map((r) => r.sessionsKept)).toEqual([4, 1, 4]);
  });
});

describe('retention job switch', () => {
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

  it('RETENTION_ENABLED=false schedules nothing', () => {
    expect(gw.app.get(SchedulerRegistry).doesExist('interval', RETENTION_JOB)).toBe(false);
  });
});
