import { DataSource } from 'typeorm';
import { callFingerprint } from '@app/modules/loop-acting/journal/journal-fingerprint';
import { canonicalJson } from '@app/common/canonical-json';
import { describeEachDialect } from '@test/support/test-database';
import { agentWithTool, createKey, gatewayForSuite, openSession, toolBody } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';

describeEachDialect('a decision on a call whose tool was renamed while it waited', (dialect) => {
  const suite = gatewayForSuite(dialect, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
  let remote: RecordingHttpServer;
  let runtime: { Authorization: string };

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    remote.handler = (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true }));
    };
    runtime = await createKey(suite.gw, 'acme', 'runtime');
  });

  afterAll(async () => {
    await remote?.stop();
  });

  /**
   * A call of `tool` (a bound tool of `agentId`) whose owner died: its entry STARTED, the lease expired. Then the
   * tool is renamed and another bound tool (SIDE_EFFECT, at `otherPath` of the remote) takes its old name.
   */
  async function deadOwnerCallOfReplacedTool(
    name: string,
    sideEffect: string,
    toolCallId: string,
    args: Record<string, unknown>,
  ): Promise<{ sessionId: string; replace: (otherPath: string) => Promise<void> }> {
    const gw = suite.gw;
    const { toolId, agentId } = await agentWithTool(gw, 'acme', { name, endpoint: remote.url(`/${name}`), sideEffect });
    const tool = { toolId, agentId, name, sideEffect };
    const sessionId = await openSession(gw, runtime, agentId);
    const past = Date.now() - 60_000;
    await gw.app.get(DataSource).query(
      `INSERT INTO tool_call_journal (tenant_id, session_id, tool_call_id, tool_name, tool_id, fingerprint, arguments_json, side_effect, state, result_status, attempts, iteration, owner, lease_expires_at, started_at, finished_at, duration_ms, is_error, error_class, content, total_chars, result_chunks, inline_limit)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'STARTED', NULL, 0, 1, 'dead-instance', ?, ?, NULL, NULL, 0, NULL, NULL, 0, 0, 20000)`,
      [
        'acme',
        sessionId,
        toolCallId,
        tool.name,
        tool.toolId,
        callFingerprint(tool.name, args),
        canonicalJson(args),
        tool.sideEffect,
        past,
        past,
      ],
    );
    return {
      sessionId,
      replace: async (otherPath) => {
        await gw.http
          .patch(`/api/v1/admin/tools/${tool.toolId}`)
          .set(gw.admin)
          .send({ name: `${tool.name}_v1` })
          .expect(200);
        const other = (
          await gw.http
            .post('/api/v1/admin/tools')
            .set(gw.admin)
            .send(
              toolBody({
                tenantId: 'acme',
                name: tool.name,
                endpoint: remote.url(otherPath),
                sideEffect: 'SIDE_EFFECT',
              }),
            )
            .expect(201)
        ).body.id as string;
        await gw.http
          .post(`/api/v1/admin/agents/${tool.agentId}/tools`)
          .set(gw.admin)
          .send({ toolId: other })
          .expect(200);
      },
    };
  }

  /** A session waiting for approval of `name` (HIGH_RISK, `tool` overrides), whose tool is then renamed. */
  const waitingOnRenamedTool = async (name: string, tool: Record<string, unknown>, args: Record<string, unknown>) => {
    const gw = suite.gw;
    const { toolId, agentId } = await agentWithTool(gw, 'acme', {
      name,
      endpoint: remote.url(`/${name}`),
      sideEffect: 'HIGH_RISK',
      ...tool,
    });
    const sessionId = await openSession(gw, runtime, agentId);
    const waiting = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: `${name}-1`, name, arguments: args }] })
      .expect(200);
    expect(waiting.body.hitlRequest).toMatchObject({ requestType: 'TOOL_APPROVAL', toolCallId: `${name}-1` });
    await gw.http
      .patch(`/api/v1/admin/tools/${toolId}`)
      .set(gw.admin)
      .send({ name: `${name}_v2` })
      .expect(200);
    return sessionId;
  };

  it('applies the rejectPolicy ABORT_SESSION of the tool the call was made to, renamed since: the session is closed', async () => {
    const gw = suite.gw;
    const sessionId = await waitingOnRenamedTool(
      'deploy',
      { hitl: { approvalText: 'Deploy?', rejectPolicy: 'ABORT_SESSION' } },
      { q: 'v2' },
    );
    const rejected = await gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(runtime)
      .send({ clientMessageId: 'no', decision: 'REJECT', message: 'not today' })
      .expect(200);
    expect(rejected.body.results[0]).toMatchObject({ toolCallId: 'deploy-1', status: 'REJECTED' });
    expect((await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200)).body.status).toBe('CLOSED');
    expect(remote.requests).toHaveLength(0);
  });

  it('hides the redactFields of the tool the call was made to, renamed since, in the log row of the rejection', async () => {
    const gw = suite.gw;
    const sessionId = await waitingOnRenamedTool(
      'rotate_key',
      {
        parameters: { type: 'object', properties: { q: { type: 'string' }, customer: { type: 'string' } } },
        result: { redactFields: ['customer'] },
      },
      { q: 'prod', customer: 'ACME-Holdings-7731' },
    );
    await gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(runtime)
      .send({ clientMessageId: 'no', decision: 'REJECT' })
      .expect(200);
    const rows = (await gw.http.get(`/api/v1/admin/tool-calls?sessionId=${sessionId}`).set(gw.admin).expect(200)).body
      .items as Array<{ status: string }>;
    expect(rows.map((r) => r.status)).toEqual(['PENDING_APPROVAL', 'REJECTED']);
    expect(JSON.stringify(rows)).not.toContain('ACME-Holdings-7731');
  });

  it("never lets an approval run another tool that took the reviewed call's name: that tool asks for its own approval", async () => {
    const gw = suite.gw;
    const sessionId = await waitingOnRenamedTool('push_prod', {}, { q: 'main' });
    const agentId = (await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200)).body
      .agentId as string;
    const other = (
      await gw.http
        .post('/api/v1/admin/tools')
        .set(gw.admin)
        .send(
          toolBody({
            tenantId: 'acme',
            name: 'push_prod',
            endpoint: remote.url('/other_push'),
            sideEffect: 'HIGH_RISK',
          }),
        )
        .expect(201)
    ).body.id as string;
    await gw.http.post(`/api/v1/admin/agents/${agentId}/tools`).set(gw.admin).send({ toolId: other }).expect(200);
    const approved = await gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(runtime)
      .send({ clientMessageId: 'yes' })
      .expect(200);
    expect(approved.body).toMatchObject({
      status: 'INTERRUPTED',
      hitlRequest: { requestType: 'TOOL_APPROVAL', toolCallId: 'push_prod-1' },
    });
    expect(remote.requests.filter((r) => r.url.startsWith('/other_push'))).toHaveLength(0);
  });

  it('never lets a RETRY run another tool that took the name of the call whose outcome is unknown: it asks again', async () => {
    const gw = suite.gw;
    // A call of the tool whose owner died (lease expired, STARTED): submitted again, it waits for a human.
    const args = { q: 'day-close' };
    const { sessionId, ...call } = await deadOwnerCallOfReplacedTool('sync_ledger', 'SIDE_EFFECT', 'sync-1', args);
    const unknown = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'sync-1', name: 'sync_ledger', arguments: args }] })
      .expect(200);
    expect(unknown.body.hitlRequest).toMatchObject({ requestType: 'UNKNOWN_OUTCOME', toolCallId: 'sync-1' });
    await call.replace('/other_sync');
    const retried = await gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(runtime)
      .send({ clientMessageId: 'again', decision: 'RETRY' })
      .expect(200);
    expect(retried.body).toMatchObject({ status: 'INTERRUPTED', hitlRequest: { toolCallId: 'sync-1' } });
    expect(remote.requests.filter((r) => r.url.startsWith('/other_sync'))).toHaveLength(0);
  });

  it('never runs again, in place of a READ_ONLY call whose owner died, another tool that took its name since', async () => {
    const gw = suite.gw;
    const args = { q: 'order-7' };
    const { sessionId, ...call } = await deadOwnerCallOfReplacedTool('find_order', 'READ_ONLY', 'find-1', args);
    await call.replace('/cancel_order');

    const acted = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'find-1', name: 'find_order', arguments: args }] })
      .expect(200);
    expect(remote.requests.filter((r) => r.url.startsWith('/cancel_order'))).toHaveLength(0);
    expect(acted.body.results[0]).toMatchObject({ toolCallId: 'find-1', status: 'FAILED', isError: true });
    expect(acted.body.results[0].content).toMatch(/find_order.*(renamed|replaced)/);
  });
});
