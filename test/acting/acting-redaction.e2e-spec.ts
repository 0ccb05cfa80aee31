import { DataSource } from 'typeorm';
import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';
import { createKey, startTestGateway, TestGateway, toolBody } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import { callFingerprint } from '@app/modules/loop-acting/journal/journal-fingerprint';
import { canonicalJson } from '@app/common/canonical-json';
import { JournalOrphanSweepService } from '@app/modules/loop-acting/journal/journal-orphan-sweep.service';

/** Every secret these calls carry: none may appear in anything the gateway stores for display or shows. */
const SECRETS = [
  'sk-live-0000secret',
  'hunter2-pw',
  'dbpass-777',
  'ACCT-4242-4242',
  'acc-key-999',
  'bearer-tok-555',
  'PRIV-KEY-MATERIAL',
  'ssn-078-05',
];

describeEachDialect('redaction of arguments and results wherever they are stored or shown', (dialect) => {
  let db: TestDatabase;
  let gw: TestGateway;
  let remote: RecordingHttpServer;
  let runtime: { Authorization: string };
  let agentId: string;

  /** A >2,000-character JSON whose secrets come first, so a preview cut before redaction would keep them. */
  const bigSecretResult = JSON.stringify({
    apiKey: 'sk-live-0000secret',
    account: { accountNo: 'ACCT-4242-4242' },
    connection: 'postgres://app:dbpass-777@db.internal:5432/main',
    items: Array.from({ length: 60 }, (_, i) => ({ id: i, text: 'lorem ipsum '.repeat(4) })),
  });

  const tool = async (name: string, overrides: Record<string, unknown>) =>
    (
      await gw.http
        .post('/api/v1/admin/tools')
        .set(gw.admin)
        .send(toolBody({ name, tenantId: 'acme', endpoint: remote.url(`/${name}`), ...overrides }))
        .expect(201)
    ).body;
  const newSession = async () =>
    (await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u1', permissions: [] }).expect(201))
      .body.id as string;
  const act = (
    sessionId: string,
    iteration: number,
    toolCalls: Array<{ id: string; name: string; arguments: unknown }>,
  ) => gw.http.post(`/api/v1/sessions/${sessionId}/act`).set(runtime).send({ iteration, toolCalls }).expect(200);
  const resume = (sessionId: string, body: Record<string, unknown>) =>
    gw.http.post(`/api/v1/sessions/${sessionId}/resume`).set(runtime).send(body).expect(200);
  const toolLog = async (sessionId?: string) =>
    (
      await gw.http
        .get(`/api/v1/admin/tool-calls${sessionId ? `?sessionId=${sessionId}` : '?toolName=vault_read'}`)
        .set(gw.admin)
        .expect(200)
    ).body.items as Array<Record<string, unknown>>;
  const expectNoSecret = (what: unknown) => {
    const text = JSON.stringify(what);
    for (const secret of SECRETS) expect(text).not.toContain(secret);
  };
  const accountParams = {
    type: 'object',
    properties: { q: { type: 'string' }, accountNo: { type: 'string' }, accessKey: { type: 'string' } },
    required: ['q'],
  };

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    remote.handler = (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(bigSecretResult);
    };
    db = await createTestDatabaseUrl(dialect);
    gw = await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
    runtime = await createKey(gw, 'acme', 'runtime');
    const tools = [
      await tool('vault_read', {
        httpMethod: 'POST',
        result: { redactFields: ['accountNo'] },
        parameters: accountParams,
      }),
      await tool('transfer', {
        sideEffect: 'SIDE_EFFECT',
        result: { redactFields: ['accountNo'] },
        parameters: accountParams,
      }),
      await tool('db_exec', {
        sideEffect: 'SIDE_EFFECT',
        result: { redactFields: ['sql'] },
        parameters: { type: 'object', properties: { sql: { type: 'string', 'x-risk': 'sql' } }, required: ['sql'] },
      }),
    ];
    agentId = (
      await gw.http
        .post('/api/v1/admin/agents')
        .set(gw.admin)
        .send({ name: 'redaction-bot', tenantId: 'acme' })
        .expect(201)
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

  it('stores the log row of an act call with a >2,000-character JSON result redacted before the preview is cut', async () => {
    const sessionId = await newSession();
    const args = { q: 'Authorization: Bearer bearer-tok-555', accountNo: 'ACCT-4242-4242', accessKey: 'acc-key-999' };
    const res = await act(sessionId, 1, [{ id: 'v1', name: 'vault_read', arguments: args }]);
    expect(res.body.results[0]).toMatchObject({ status: 'COMPLETED' });
    expect(res.body.results[0].content).toBe(bigSecretResult);
    const [row] = await toolLog(sessionId);
    expect(row).toMatchObject({ toolCallId: 'v1', status: 'COMPLETED', resultChars: bigSecretResult.length });
    expect(row.arguments).toEqual({ q: 'Authorization: Bearer ***', accountNo: '***', accessKey: '***' });
    expect(row.resultPreview).toHaveLength(2000);
    expect(
      String(row.resultPreview).startsWith(
        '{"apiKey":"***","account":{"accountNo":"***"},"connection":"postgres://app:***@db.internal:5432/main"',
      ),
    ).toBe(true);
    expectNoSecret(row);
  });

  it('does the same for executeDirect', async () => {
    const res = await gw.http
      .post('/api/v1/tools/vault_read/execute')
      .set(runtime)
      .send({
        agentId,
        userId: 'u1',
        permissions: [],
        toolCallId: 'direct-1',
        arguments: { q: 'x', accountNo: 'ACCT-4242-4242', accessKey: 'acc-key-999' },
      })
      .expect(200);
    expect(res.body.status).toBe('COMPLETED');
    const rows = (await toolLog()).filter((r) => r.toolCallId === 'direct-1');
    expect(rows).toEqual([
      expect.objectContaining({ entry: 'DIRECT', arguments: { q: 'x', accountNo: '***', accessKey: '***' } }),
    ]);
    expectNoSecret(rows);
  });

  it('keeps a redacted field out of the error executeDirect answers when a call needs approval', async () => {
    const res = await gw.http
      .post('/api/v1/tools/db_exec/execute')
      .set(runtime)
      .send({ agentId, userId: 'u1', permissions: [], arguments: { sql: 'DROP TABLE ssn-078-05' } })
      .expect(409);
    expect(res.body.error.code).toBe('HITL_REQUIRED');
    expect(res.body.error.details.rules).toEqual([expect.objectContaining({ rule: 'drop', match: '***' })]);
    expectNoSecret(res.body);
  });

  it('redacts arguments sent as text that is not JSON', async () => {
    const sessionId = await newSession();
    const res = await act(sessionId, 1, [
      { id: 'n1', name: 'vault_read', arguments: 'password=hunter2-pw and accountNo' },
    ]);
    expect(res.body.results[0]).toMatchObject({ status: 'FAILED', errorClass: 'BAD_ARGUMENTS' });
    const [row] = await toolLog(sessionId);
    expect(row.arguments).toBe('password=*** and accountNo');
    expectNoSecret(row);
  });

  it('hides redactFields in an UNKNOWN_OUTCOME request, its log rows and the resume row', async () => {
    const sessionId = await newSession();
    const args = { q: 'pay', accountNo: 'ACCT-4242-4242' };
    const past = Date.now() - 60_000;
    await gw.app.get(DataSource).query(
      `INSERT INTO tool_call_journal (tenant_id, session_id, tool_call_id, tool_name, tool_id, fingerprint, arguments_json, side_effect, state, result_status, attempts, iteration, owner, lease_expires_at, started_at, finished_at, duration_ms, is_error, error_class, content, total_chars, result_chunks, inline_limit)
       VALUES (?, ?, ?, ?, NULL, ?, ?, 'SIDE_EFFECT', 'STARTED', NULL, 0, 1, 'dead-instance', ?, ?, NULL, NULL, 0, NULL, NULL, 0, 0, 20000)`,
      ['acme', sessionId, 'uo1', 'transfer', callFingerprint('transfer', args), canonicalJson(args), past, past],
    );
    const res = await act(sessionId, 1, [{ id: 'uo1', name: 'transfer', arguments: JSON.stringify(args) }]);
    expect(res.body.hitlRequest).toMatchObject({
      requestType: 'UNKNOWN_OUTCOME',
      toolCallId: 'uo1',
      toolParams: { q: 'pay', accountNo: '***' },
    });
    expectNoSecret(res.body);
    expectNoSecret((await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200)).body);
    const queue = (await gw.http.get('/api/v1/admin/hitl?status=PENDING').set(gw.admin).expect(200)).body.items.filter(
      (i: { sessionId: string }) => i.sessionId === sessionId,
    );
    expect(queue).toEqual([
      expect.objectContaining({ requestType: 'UNKNOWN_OUTCOME', toolParams: { q: 'pay', accountNo: '***' } }),
    ]);
    const done = await resume(sessionId, {
      clientMessageId: 'uo-done',
      decision: 'MARK_DONE',
      message: 'checked by phone',
    });
    expect(done.body.results[0]).toMatchObject({ toolCallId: 'uo1', status: 'COMPLETED' });
    const rows = await toolLog(sessionId);
    expect(rows.map((r) => [r.status, r.entry, r.arguments])).toEqual([
      ['UNKNOWN_OUTCOME', 'ACT', { q: 'pay', accountNo: '***' }],
      ['COMPLETED', 'RESUME', { q: 'pay', accountNo: '***' }],
    ]);
    expectNoSecret(rows);
    const journal = (await gw.http.get(`/api/v1/admin/sessions/${sessionId}/journal`).set(gw.admin).expect(200)).body;
    expectNoSecret(journal);
  });

  it('hides redactFields in an UNKNOWN_OUTCOME request the dead-owner sweep raises, and its log row', async () => {
    const sessionId = await newSession();
    const args = { q: 'pay', accountNo: 'ACCT-4242-4242' };
    const past = Date.now() - 60_000;
    await gw.app.get(DataSource).query(
      `INSERT INTO tool_call_journal (tenant_id, session_id, tool_call_id, tool_name, tool_id, fingerprint, arguments_json, side_effect, state, result_status, attempts, iteration, owner, lease_expires_at, started_at, finished_at, duration_ms, is_error, error_class, content, total_chars, result_chunks, inline_limit)
       VALUES (?, ?, ?, ?, NULL, ?, ?, 'SIDE_EFFECT', 'STARTED', NULL, 0, 1, 'dead-instance', ?, ?, NULL, NULL, 0, NULL, NULL, 0, 0, 20000)`,
      ['acme', sessionId, 'swept1', 'transfer', callFingerprint('transfer', args), canonicalJson(args), past, past],
    );
    expect(await gw.app.get(JournalOrphanSweepService).sweep()).toBeGreaterThanOrEqual(1);
    const session = (await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200)).body;
    expect(session.hitlRequest).toMatchObject({
      requestType: 'UNKNOWN_OUTCOME',
      toolCallId: 'swept1',
      toolParams: { q: 'pay', accountNo: '***' },
    });
    expectNoSecret(session);
    const queue = (await gw.http.get('/api/v1/admin/hitl?status=PENDING').set(gw.admin).expect(200)).body.items.filter(
      (i: { sessionId: string }) => i.sessionId === sessionId,
    );
    expect(queue).toEqual([
      expect.objectContaining({ requestType: 'UNKNOWN_OUTCOME', toolParams: { q: 'pay', accountNo: '***' } }),
    ]);
    const rows = await toolLog(sessionId);
    expect(rows.map((r) => [r.status, r.arguments])).toEqual([['UNKNOWN_OUTCOME', { q: 'pay', accountNo: '***' }]]);
    expectNoSecret(rows);
  });

  it('hides redactFields in UNKNOWN_OUTCOME requests (act and sweep) and the resume row of a tool renamed since the call started', async () => {
    const renamed = await tool('pay_out', {
      sideEffect: 'SIDE_EFFECT',
      result: { redactFields: ['accountNo'] },
      parameters: accountParams,
    });
    await gw.http.post(`/api/v1/admin/agents/${agentId}/tools`).set(gw.admin).send({ toolId: renamed.id }).expect(200);
    const args = { q: 'pay', accountNo: 'ACCT-4242-4242' };
    const [byAct, bySweep] = [await newSession(), await newSession()];
    const past = Date.now() - 60_000;
    for (const [sessionId, id] of [
      [byAct, 'ren-act'],
      [bySweep, 'ren-sweep'],
    ]) {
      await gw.app.get(DataSource).query(
        `INSERT INTO tool_call_journal (tenant_id, session_id, tool_call_id, tool_name, tool_id, fingerprint, arguments_json, side_effect, state, result_status, attempts, iteration, owner, lease_expires_at, started_at, finished_at, duration_ms, is_error, error_class, content, total_chars, result_chunks, inline_limit)
         VALUES (?, ?, ?, 'pay_out', ?, ?, ?, 'SIDE_EFFECT', 'STARTED', NULL, 0, 1, 'dead-instance', ?, ?, NULL, NULL, 0, NULL, NULL, 0, 0, 20000)`,
        ['acme', sessionId, id, renamed.id, callFingerprint('pay_out', args), canonicalJson(args), past, past],
      );
    }
    // While the call was in flight, an admin renamed the tool: the name the call was made under no longer resolves.
    await gw.http.patch(`/api/v1/admin/tools/${renamed.id}`).set(gw.admin).send({ name: 'pay_out_v2' }).expect(200);

    const res = await act(byAct, 1, [{ id: 'ren-act', name: 'pay_out', arguments: args }]);
    expect(res.body.hitlRequest).toMatchObject({
      requestType: 'UNKNOWN_OUTCOME',
      toolParams: { q: 'pay', accountNo: '***' },
    });
    expectNoSecret(res.body);
    await gw.app.get(JournalOrphanSweepService).sweep();
    const swept = (await gw.http.get(`/api/v1/sessions/${bySweep}`).set(runtime).expect(200)).body;
    expect(swept.hitlRequest).toMatchObject({
      requestType: 'UNKNOWN_OUTCOME',
      toolCallId: 'ren-sweep',
      toolParams: { q: 'pay', accountNo: '***' },
    });
    const queue = (await gw.http.get('/api/v1/admin/hitl?status=PENDING').set(gw.admin).expect(200)).body.items.filter(
      (i: { sessionId: string }) => i.sessionId === byAct || i.sessionId === bySweep,
    );
    expect(queue).toHaveLength(2);
    expectNoSecret(queue);
    await resume(byAct, { clientMessageId: 'ren-no', decision: 'REJECT', message: 'no' });
    const rows = [...(await toolLog(byAct)), ...(await toolLog(bySweep))];
    expect(rows.map((r) => [r.status, r.arguments])).toEqual([
      ['UNKNOWN_OUTCOME', { q: 'pay', accountNo: '***' }],
      ['REJECTED', { q: 'pay', accountNo: '***' }],
      ['UNKNOWN_OUTCOME', { q: 'pay', accountNo: '***' }],
    ]);
    expectNoSecret(rows);
  });

  it('hides redactFields in the resume row of a rejected call whose arguments came as a JSON string', async () => {
    await gw.http
      .patch(`/api/v1/admin/agents/${agentId}`)
      .set(gw.admin)
      .send({ sideEffectPolicy: 'APPROVE_SIDE_EFFECTS' })
      .expect(200);
    try {
      const sessionId = await newSession();
      const res = await act(sessionId, 1, [
        { id: 't1', name: 'transfer', arguments: '{"q":"pay","accountNo":"ACCT-4242-4242","password":"hunter2-pw"}' },
      ]);
      expect(res.body.hitlRequest).toMatchObject({
        requestType: 'TOOL_APPROVAL',
        toolParams: { q: 'pay', accountNo: '***', password: '***' },
      });
      await resume(sessionId, { clientMessageId: 't1-no', decision: 'REJECT', message: 'no' });
      const rows = await toolLog(sessionId);
      expect(rows.map((r) => [r.status, r.entry, r.arguments])).toEqual([
        ['PENDING_APPROVAL', 'ACT', { q: 'pay', accountNo: '***', password: '***' }],
        ['REJECTED', 'RESUME', { q: 'pay', accountNo: '***', password: '***' }],
      ]);
      expectNoSecret(rows);
    } finally {
      await gw.http
        .patch(`/api/v1/admin/agents/${agentId}`)
        .set(gw.admin)
        .send({ sideEffectPolicy: 'ALLOW' })
        .expect(200);
    }
  });

  it('keeps a redacted field out of the trigger reason and prompt of a risky call', async () => {
    const sessionId = await newSession();
    const res = await act(sessionId, 1, [{ id: 'r1', name: 'db_exec', arguments: { sql: 'DROP TABLE ssn-078-05' } }]);
    expect(res.body.hitlRequest).toMatchObject({ requestType: 'TOOL_APPROVAL', toolParams: { sql: '***' } });
    expect(res.body.hitlRequest.triggerReason).toContain('drop');
    expectNoSecret(res.body);
    const queue = (await gw.http.get('/api/v1/admin/hitl?status=PENDING').set(gw.admin).expect(200)).body.items.filter(
      (i: { sessionId: string }) => i.sessionId === sessionId,
    );
    expect(queue).toHaveLength(1);
    expectNoSecret(queue);
    expectNoSecret(await toolLog(sessionId));
  });
});
