import { DataSource } from 'typeorm';
import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';
import { createKey, startTestGateway, TestGateway, toolBody } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import { waitFor } from '@test/support/wait-for';
import { callFingerprint } from '@app/modules/loop-acting/journal/journal-fingerprint';
import { canonicalJson } from '@app/common/canonical-json';
import { JournalOrphanSweepService } from '@app/modules/loop-acting/journal/journal-orphan-sweep.service';
import { ToolCallJournalRepository } from '@app/modules/loop-acting/journal/tool-call-journal.repository';
import { AgentSessionRepository } from '@app/modules/loop-acting/sessions/agent-session.repository';
import { BatchRunner } from '@app/modules/loop-acting/acting/batch-runner';
import { ToolRegistryService } from '@app/modules/tool-registry/tool-registry.service';
import { BuiltinToolCatalog } from '@app/modules/tool-registry/builtin-tool.catalog';
import { RetentionService } from '@app/modules/retention/retention.service';

describeEachDialect('the dead-owner sweep lists side-effecting calls left STARTED in the HITL queue', (dialect) => {
  let db: TestDatabase;
  let gw: TestGateway;
  let remote: RecordingHttpServer;
  let runtime: { Authorization: string };
  let agentId: string;
  const sweep = (g = gw) => g.app.get(JournalOrphanSweepService).sweep();
  const newSession = async () =>
    (await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u1', permissions: [] }).expect(201))
      .body.id as string;
  const session = async (id: string) => (await gw.http.get(`/api/v1/sessions/${id}`).set(runtime).expect(200)).body;
  const requestsOf = async (sessionId: string) =>
    (await gw.http.get('/api/v1/admin/hitl?pageSize=100').set(gw.admin).expect(200)).body.items.filter(
      (i: { sessionId: string }) => i.sessionId === sessionId,
    );
  /** A journal entry as a process that died mid-call leaves it: STARTED, its lease `ageMs` in the past (negative: still alive). */
  const plantStarted = async (
    sessionId: string,
    toolCallId: string,
    name: string,
    args: Record<string, unknown>,
    sideEffect = 'SIDE_EFFECT',
    ageMs = 60_000,
  ) => {
    const lease = Date.now() - ageMs;
    await gw.app.get(DataSource).query(
      `INSERT INTO tool_call_journal (tenant_id, session_id, tool_call_id, tool_name, tool_id, fingerprint, arguments_json, side_effect, state, result_status, attempts, iteration, owner, lease_expires_at, started_at, finished_at, duration_ms, is_error, error_class, content, total_chars, result_chunks, inline_limit)
       VALUES (?, ?, ?, ?, NULL, ?, ?, ?, 'STARTED', NULL, 0, 1, 'dead-instance', ?, ?, NULL, NULL, 0, NULL, NULL, 0, 0, 20000)`,
      [
        'acme',
        sessionId,
        toolCallId,
        name,
        callFingerprint(name, args),
        canonicalJson(args),
        sideEffect,
        lease,
        lease - 1000,
      ],
    );
  };
  const act = (sessionId: string, toolCalls: Array<{ id: string; name: string; arguments: unknown }>, expected = 200) =>
    gw.http.post(`/api/v1/sessions/${sessionId}/act`).set(runtime).send({ iteration: 1, toolCalls }).expect(expected);

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    db = await createTestDatabaseUrl(dialect);
    gw = await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
    runtime = await createKey(gw, 'acme', 'runtime');
    const tools = [
      (
        await gw.http
          .post('/api/v1/admin/tools')
          .set(gw.admin)
          .send(
            toolBody({
              name: 'write_note',
              tenantId: 'acme',
              endpoint: remote.url('/write_note'),
              sideEffect: 'SIDE_EFFECT',
            }),
          )
          .expect(201)
      ).body,
      (
        await gw.http
          .post('/api/v1/admin/tools')
          .set(gw.admin)
          .send(toolBody({ name: 'read_doc', tenantId: 'acme', endpoint: remote.url('/read_doc'), httpMethod: 'GET' }))
          .expect(201)
      ).body,
    ];
    agentId = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'swept', tenantId: 'acme' }).expect(201)
    ).body.id;
    await gw.http
      .put(`/api/v1/admin/agents/${agentId}/tools`)
      .set(gw.admin)
      .send({ toolIds: tools.map((t) => t.id) })
      .expect(200);
  });

  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
    await db?.drop();
  });

  it('raises an expired SIDE_EFFECT entry as the UNKNOWN_OUTCOME request act would, once; a resubmit finds it and a decision works it', async () => {
    const sessionId = await newSession();
    await plantStarted(sessionId, 's1', 'write_note', { q: 'swept' });
    await sweep();
    const [request, ...more] = await requestsOf(sessionId);
    expect(more).toEqual([]);
    expect(request).toMatchObject({
      requestType: 'UNKNOWN_OUTCOME',
      status: 'PENDING',
      toolName: 'write_note',
      toolCallId: 's1',
      toolParams: { q: 'swept' },
      iteration: 1,
      agentId,
    });
    expect(await session(sessionId)).toMatchObject({
      status: 'INTERRUPTED',
      hitlPending: true,
      hitlRequest: { id: request.id, requestType: 'UNKNOWN_OUTCOME', toolCallId: 's1' },
    });

    // Another round, and the runtime's resubmit, find the same request: no second one.
    await sweep();
    const resubmit = await act(sessionId, [{ id: 's1', name: 'write_note', arguments: { q: 'swept' } }], 409);
    expect(resubmit.body.error).toMatchObject({
      code: 'SESSION_INTERRUPTED',
      details: { hitlRequest: { id: request.id } },
    });
    expect(await requestsOf(sessionId)).toHaveLength(1);

    const retried = await gw.http
      .post(`/api/v1/admin/hitl/${request.id}/decision`)
      .set(gw.admin)
      .send({ decision: 'RETRY', reviewer: 'ops' })
      .expect(200);
    expect(retried.body.results).toEqual([expect.objectContaining({ toolCallId: 's1', status: 'COMPLETED' })]);
    expect(remote.requests.filter((r) => r.body.includes('swept'))).toHaveLength(1);
    const again = await act(sessionId, [{ id: 's1', name: 'write_note', arguments: { q: 'swept' } }]);
    expect(again.body.results[0]).toMatchObject({ status: 'COMPLETED', reused: true });
    await sweep();
    expect(await requestsOf(sessionId)).toHaveLength(1);
  });

  it('leaves READ_ONLY entries to run again, and entries whose owner is alive alone', async () => {
    const sessionId = await newSession();
    await plantStarted(sessionId, 'ro', 'read_doc', { q: 'ro' }, 'READ_ONLY');
    await plantStarted(sessionId, 'alive', 'write_note', { q: 'alive' }, 'SIDE_EFFECT', -60_000);
    await sweep();
    expect(await requestsOf(sessionId)).toEqual([]);
    expect((await session(sessionId)).status).toBe('ACTIVE');
    const res = await act(sessionId, [{ id: 'ro', name: 'read_doc', arguments: { q: 'ro' } }]);
    expect(res.body.results[0]).toMatchObject({ status: 'COMPLETED', reused: false });
  });

  it('leaves a sub-agent call (its child is keyed by the toolCallId) to run again; another IDEMPOTENT call is raised', async () => {
    const delegating = await newSession();
    const writing = await newSession();
    const builtins = (await gw.http.get('/api/v1/admin/tools?source=BUILTIN&pageSize=500').set(gw.admin).expect(200))
      .body.items;
    const subAgentCall = builtins.find((t: { name: string }) => t.name === 'SUB_AGENT_CALL');
    await plantStarted(delegating, 'sub', 'SUB_AGENT_CALL', { agent: 'helper', task: 'x' }, 'IDEMPOTENT');
    await gw.app
      .get(DataSource)
      .query('UPDATE tool_call_journal SET tool_id = ? WHERE session_id = ?', [subAgentCall.id, delegating]);
    await plantStarted(writing, 'put', 'write_note', { q: 'put' }, 'IDEMPOTENT');
    await sweep();
    expect(await requestsOf(delegating)).toEqual([]);
    expect((await session(delegating)).status).toBe('ACTIVE');
    expect(await requestsOf(writing)).toEqual([
      expect.objectContaining({ requestType: 'UNKNOWN_OUTCOME', toolCallId: 'put' }),
    ]);
  });

  it('leaves an entry it cannot rebuild for the resubmit, and still raises the others', async () => {
    const broken = await newSession();
    const fine = await newSession();
    await plantStarted(broken, 'bad', 'write_note', { q: 'bad' }, 'SIDE_EFFECT', 120_000);
    await gw.app
      .get(DataSource)
      .query("UPDATE tool_call_journal SET arguments_json = '{not json' WHERE session_id = ?", [broken]);
    await plantStarted(fine, 'good', 'write_note', { q: 'good' });
    await sweep();
    expect(await requestsOf(broken)).toEqual([]);
    expect((await session(broken)).status).toBe('ACTIVE');
    expect(await requestsOf(fine)).toEqual([
      expect.objectContaining({ requestType: 'UNKNOWN_OUTCOME', toolCallId: 'good' }),
    ]);
  });

  it('passes over entries it could not rebuild, however many: newer orphans are still raised', async () => {
    const broken = await newSession();
    const fine = await newSession();
    // More unrebuildable entries than one sweep looks at (100), all older than the raisable one.
    for (let i = 0; i < 105; i++)
      await plantStarted(broken, `bad-${i}`, 'write_note', { q: `bad-${i}` }, 'SIDE_EFFECT', 300_000 - i);
    await gw.app
      .get(DataSource)
      .query("UPDATE tool_call_journal SET arguments_json = '{not json' WHERE session_id = ?", [broken]);
    await plantStarted(fine, 'late', 'write_note', { q: 'late' }, 'SIDE_EFFECT', 1_000);
    await sweep(); // meets the 100 oldest, all unrebuildable
    await sweep(); // the 5 others, and the raisable one
    expect(await requestsOf(fine)).toEqual([
      expect.objectContaining({ requestType: 'UNKNOWN_OUTCOME', toolCallId: 'late' }),
    ]);
    expect((await session(broken)).status).toBe('ACTIVE');
  });

  it('forgets an entry it passed over once the entry is no longer an orphan (finished, or its session closed)', async () => {
    const app = gw.app;
    // A sweeper of its own, so what earlier rounds passed over does not count here.
    const sweeper = new JournalOrphanSweepService(
      app.get(ToolCallJournalRepository),
      app.get(AgentSessionRepository),
      app.get(BatchRunner),
      app.get(ToolRegistryService),
      app.get(BuiltinToolCatalog),
    );
    const passedOver = (sessionId: string, toolCallId: string) =>
      (sweeper as unknown as { skipped: { has(key: string): boolean } }).skipped.has(`${sessionId}/${toolCallId}`);
    const finished = await newSession();
    const closed = await newSession();
    for (const [sessionId, id] of [
      [finished, 'fin'],
      [closed, 'cls'],
    ]) {
      // Older than every orphan the earlier tests left, so this sweeper's first round lists them.
      await plantStarted(sessionId, id, 'write_note', { q: id }, 'SIDE_EFFECT', 3_600_000);
      await app
        .get(DataSource)
        .query("UPDATE tool_call_journal SET arguments_json = '{not json' WHERE session_id = ?", [sessionId]);
    }
    await sweeper.sweep();
    expect([passedOver(finished, 'fin'), passedOver(closed, 'cls')]).toEqual([true, true]);

    // The resubmit finished one; the other's session was closed: neither will be listed again.
    await app
      .get(DataSource)
      .query("UPDATE tool_call_journal SET state = 'COMPLETED', result_status = 'COMPLETED' WHERE session_id = ?", [
        finished,
      ]);
    await gw.http.delete(`/api/v1/sessions/${closed}`).set(runtime).expect(200);
    await sweeper.sweep();
    expect([passedOver(finished, 'fin'), passedOver(closed, 'cls')]).toEqual([false, false]);
  });

  it("lists a session's journal for admins a page at a time, in call order, without arguments or results", async () => {
    const sessionId = await newSession();
    for (let i = 0; i < 7; i++)
      await plantStarted(sessionId, `p${i}`, 'write_note', { q: `p${i}` }, 'SIDE_EFFECT', -60_000 - i);
    const page = (n: number) =>
      gw.http.get(`/api/v1/admin/sessions/${sessionId}/journal?page=${n}&pageSize=3`).set(gw.admin).expect(200);
    const second = (await page(2)).body;
    expect(second).toMatchObject({ total: 7, page: 2, pageSize: 3 });
    expect(second.items.map((e: { toolCallId: string }) => e.toolCallId)).toEqual(['p3', 'p4', 'p5']);
    expect(Object.keys(second.items[0]).sort()).toEqual(
      [
        'attempts',
        'errorClass',
        'finishedAt',
        'iteration',
        'leaseExpiresAt',
        'owner',
        'resultStatus',
        'startedAt',
        'state',
        'toolCallId',
        'toolName',
        'totalChars',
      ].sort(),
    );
    expect((await page(3)).body.items.map((e: { toolCallId: string }) => e.toolCallId)).toEqual(['p6']);
    await gw.http.get(`/api/v1/admin/sessions/${sessionId}/journal?pageSize=501`).set(gw.admin).expect(400);
  });

  it('raises one request when several sweeps run at once (two instances on MySQL)', async () => {
    const sessionId = await newSession();
    await plantStarted(sessionId, 'dup', 'write_note', { q: 'dup' });
    const app = gw.app;
    // A second sweeper in this process (the same compare-and-set another process meets; SQLite has one writer).
    const twin = new JournalOrphanSweepService(
      app.get(ToolCallJournalRepository),
      app.get(AgentSessionRepository),
      app.get(BatchRunner),
      app.get(ToolRegistryService),
      app.get(BuiltinToolCatalog),
    );
    const other = dialect === 'mysql' ? await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' }) : null;
    try {
      const rounds = await Promise.all([
        sweep(),
        twin.sweep(),
        ...(other ? [sweep(other), other.app.get(JournalOrphanSweepService).sweep()] : []),
      ]);
      expect(rounds.reduce((a, b) => a + b, 0)).toBe(1);
      expect(await requestsOf(sessionId)).toHaveLength(1);
    } finally {
      await other?.close();
    }
  });

  it('ends a call left STARTED by a dead owner in a closed session: FAILED, its outcome unknown; retention then deletes the session', async () => {
    const startedGauge = async () =>
      Number(
        /^gateway_journal_entries\{state="STARTED"\} (\d+)$/m.exec(
          (await gw.http.get('/metrics').expect(200)).text,
        )![1],
      );
    const sessionId = await newSession();
    await plantStarted(sessionId, 'dead', 'write_note', { q: 'dead' });
    await plantStarted(sessionId, 'live', 'write_note', { q: 'live' }, 'SIDE_EFFECT', -60_000);
    // Read while the session is open: once it is closed, the scheduled round may end the dead call before this sweep.
    const before = await startedGauge();
    await gw.http.delete(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200);

    await sweep();

    const journal = (await gw.http.get(`/api/v1/admin/sessions/${sessionId}/journal`).set(gw.admin).expect(200)).body
      .items;
    expect(journal).toEqual([
      expect.objectContaining({
        toolCallId: 'dead',
        state: 'FAILED',
        resultStatus: 'FAILED',
        errorClass: 'OUTCOME_UNKNOWN',
      }),
      expect.objectContaining({ toolCallId: 'live', state: 'STARTED' }),
    ]);
    // What a human needs stays with the session until retention: the call, its arguments and why it has no outcome.
    const [dead] = await gw.app
      .get(DataSource)
      .query("SELECT arguments_json, content FROM tool_call_journal WHERE session_id = ? AND tool_call_id = 'dead'", [
        sessionId,
      ]);
    expect(dead.arguments_json).toBe(canonicalJson({ q: 'dead' }));
    expect(dead.content).toMatch(/^执行失败: .*write_note.*closed.*unknown/);
    expect(await requestsOf(sessionId)).toEqual([]);
    expect(await startedGauge()).toBe(before - 1);

    // The live owner finishes its call; then nothing keeps the closed session from retention.
    await gw.app
      .get(DataSource)
      .query(
        "UPDATE tool_call_journal SET state = 'COMPLETED', result_status = 'COMPLETED' WHERE session_id = ? AND tool_call_id = 'live'",
        [sessionId],
      );
    await gw.app.get(RetentionService).purge(Date.now() + 31 * 24 * 3600_000);
    const left = await gw.app.get(DataSource).query('SELECT id FROM agent_session WHERE id = ?', [sessionId]);
    expect(left).toEqual([]);
  });

  it('a session closed while its UNKNOWN_OUTCOME request waits leaves the call as unknown, never "not run"', async () => {
    const sessionId = await newSession();
    await plantStarted(sessionId, 'maybe', 'write_note', { q: 'maybe-done' });
    await sweep();
    expect((await session(sessionId)).hitlRequest).toMatchObject({
      requestType: 'UNKNOWN_OUTCOME',
      toolCallId: 'maybe',
    });

    await gw.http.delete(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200);
    await sweep();

    const [row] = await gw.app
      .get(DataSource)
      .query(
        "SELECT state, error_class, content FROM tool_call_journal WHERE session_id = ? AND tool_call_id = 'maybe'",
        [sessionId],
      );
    // The call may have taken effect before its process died: a close is nobody's judgement of it.
    expect(row).toMatchObject({ state: 'FAILED', error_class: 'OUTCOME_UNKNOWN' });
    expect(row.content).not.toMatch(/was not run|nothing ran/);
  });

  it('with JOURNAL_SWEEP_INTERVAL_MS=0 raises no request, but still ends what a dead owner left in closed sessions, every JOURNAL_LEASE_MS', async () => {
    await gw.close();
    gw = await startTestGateway(db.url, {
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      JOURNAL_SWEEP_INTERVAL_MS: '0',
      JOURNAL_LEASE_MS: '500',
    });
    const open = await newSession();
    const closed = await newSession();
    await plantStarted(open, 'left-open', 'write_note', { q: 'left-open' });
    await plantStarted(closed, 'left-closed', 'write_note', { q: 'left-closed' });
    await gw.http.delete(`/api/v1/sessions/${closed}`).set(runtime).expect(200);
    const journalOf = async (sessionId: string) =>
      (await gw.http.get(`/api/v1/admin/sessions/${sessionId}/journal`).set(gw.admin).expect(200)).body.items;

    await waitFor(async () => (await journalOf(closed))[0].state !== 'STARTED', {
      timeoutMs: 10_000,
      intervalMs: 100,
      description: "the closed session's dead call to be ended",
    });
    expect(await journalOf(closed)).toEqual([
      expect.objectContaining({ toolCallId: 'left-closed', state: 'FAILED', errorClass: 'OUTCOME_UNKNOWN' }),
    ]);
    // The open session is left to its runtime's resubmit: no request, nothing ended.
    expect(await journalOf(open)).toEqual([expect.objectContaining({ toolCallId: 'left-open', state: 'STARTED' })]);
    expect(await requestsOf(open)).toEqual([]);
    expect((await session(open)).status).toBe('ACTIVE');
  });

  it('runs on its own every JOURNAL_SWEEP_INTERVAL_MS', async () => {
    await gw.close();
    gw = await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', JOURNAL_SWEEP_INTERVAL_MS: '100' });
    const sessionId = await newSession();
    await plantStarted(sessionId, 'job', 'write_note', { q: 'job' });
    await waitFor(async () => (await requestsOf(sessionId)).length === 1, {
      timeoutMs: 10_000,
      intervalMs: 100,
      description: 'the scheduled sweep to raise the request',
    });
    expect((await session(sessionId)).status).toBe('INTERRUPTED');
  });
});
