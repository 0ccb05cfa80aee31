import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';
import { GatewayProcess, startGatewayProcess } from '@test/support/gateway-process';
import { ScriptedModelServer } from '@test/support/scripted-model.server';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import { waitFor } from '@test/support/wait-for';
import { expireLeases } from '@test/crash/support/expire-leases';

/*
 * A run survives a crash: the gateway runs as child processes on one database; each is SIGKILLed at one point of
 * a run (during a model call, after a side-effecting tool call completed, during a side-effecting tool call),
 * then a fresh process continues every run from its checkpoint once the run's lease expired.
 */

/**
 * Run and journal leases: longer than the whole setup, so a gateway started after a kill never takes over the killed
 * one's run before the restarted instance does (it would ask the model in its place and run the script dry). The
 * setup then expires the killed instances' leases in the database, as time would.
 */
const LEASE_MS = 120_000;
const TENANT = 'crash-loop';

describeEachDialect('agent runs continue on another instance after a kill -9', (dialect) => {
  let db: TestDatabase;
  let model: ScriptedModelServer;
  let remote: RecordingHttpServer;
  let restarted: GatewayProcess;
  let runtime: Record<string, string>;
  const runs: Record<'modelCall' | 'afterTool' | 'duringTool', { sessionId: string; runId: string; model: string }> =
    {} as never;
  const requestsTo = (path: string) => remote.requests.filter((r) => r.url.startsWith(path));

  const start = (name: string, fault = '') =>
    startGatewayProcess({
      databaseUrl: db.url,
      instanceId: `loop-${name}`,
      env: {
        GATEWAY_FAULT_INJECTION: fault,
        JOURNAL_LEASE_MS: String(LEASE_MS),
        RUN_LEASE_MS: String(LEASE_MS),
        RUN_POLL_INTERVAL_MS: '50',
        OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
        JOURNAL_SWEEP_INTERVAL_MS: '0',
      },
    });
  const ok = async <T = any>(p: Promise<{ status: number; body: T }>, status: number): Promise<T> => {
    const res = await p;
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  /** An agent with its own model name, bound to both tools, and a session of it. */
  const agentAndSession = async (gw: GatewayProcess, name: string, toolIds: string[]) => {
    const provider = await ok(
      gw.call(
        'POST',
        '/api/v1/admin/model-providers',
        { name, tenantId: TENANT, kind: 'OPENAI_COMPATIBLE', baseUrl: model.baseUrl, model: name },
        gw.admin,
      ),
      201,
    );
    const agent = await ok(
      gw.call('POST', '/api/v1/admin/agents', { name, tenantId: TENANT, modelProviderId: provider.id }, gw.admin),
      201,
    );
    await ok(gw.call('PUT', `/api/v1/admin/agents/${agent.id}/tools`, { toolIds }, gw.admin), 200);
    const session = await ok(
      gw.call('POST', '/api/v1/sessions', { agentId: agent.id, userId: 'u1', permissions: [] }, runtime),
      201,
    );
    return session.id as string;
  };
  const send = async (gw: GatewayProcess, key: keyof typeof runs, sessionId: string) => {
    const res = await ok(
      gw.call('POST', `/api/v1/sessions/${sessionId}/messages`, { clientMessageId: key, content: key }, runtime),
      202,
    );
    runs[key] = { sessionId, runId: res.runId, model: key };
  };
  const runOf = (key: keyof typeof runs) =>
    ok(
      restarted.call('GET', `/api/v1/sessions/${runs[key].sessionId}/runs/${runs[key].runId}`, undefined, runtime),
      200,
    );
  const until = async (key: keyof typeof runs, status: string): Promise<any> => {
    let last: unknown;
    try {
      return await waitFor(
        async () => {
          last = await runOf(key);
          return (last as { status: string }).status === status ? last : null;
        },
        // The restarted instance takes the runs over after their leases expire; a loaded CI machine is slow at it.
        { timeoutMs: 90_000, intervalMs: 100, description: `run ${key} ${status}` },
      );
    } catch (err) {
      // What the run and the instance were doing, for a failure on a machine where it cannot be watched.
      const requests = model.requestsFor(runs[key].model).length;
      throw new Error(
        `${(err as Error).message}; the run is ${JSON.stringify(last)}; the model saw ${requests} request(s) for it; ` +
          `the restarted gateway's output ends with:\n${restarted.outputTail()}`,
      );
    }
  };

  beforeAll(async () => {
    model = await new ScriptedModelServer().start();
    remote = await new RecordingHttpServer().start();
    remote.handler = async (req, res) => {
      if (req.url.startsWith('/ledger_slow')) await new Promise((r) => setTimeout(r, 2000));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ written: true }));
    };
    db = await createTestDatabaseUrl(dialect);

    // 1. Killed right after a side-effecting call completed (journal committed, run not yet checkpointed).
    const first = await start('after-tool', 'after-completed:ledger_write');
    runtime = {
      Authorization: `Bearer ${(await ok(first.call('POST', '/api/v1/admin/api-keys', { name: 'rt', role: 'runtime', tenantId: TENANT }, first.admin), 201)).key}`,
    };
    const tool = (name: string) =>
      ok(
        first.call(
          'POST',
          '/api/v1/admin/tools',
          {
            name,
            description: 'Writes to the ledger.',
            parameters: { type: 'object', properties: { ref: { type: 'string' } }, required: ['ref'] },
            serviceType: 'HTTP',
            httpMethod: 'POST',
            endpoint: remote.url(`/${name}`),
            permissionTags: [],
            sideEffect: 'SIDE_EFFECT',
            tenantId: TENANT,
          },
          first.admin,
        ),
        201,
      );
    const toolIds = [(await tool('ledger_write')).id, (await tool('ledger_slow')).id];
    const sessions = {
      afterTool: await agentAndSession(first, 'afterTool', toolIds),
      modelCall: await agentAndSession(first, 'modelCall', toolIds),
      duringTool: await agentAndSession(first, 'duringTool', toolIds),
    };
    model.script(
      'afterTool',
      { toolCalls: [{ id: 'w1', name: 'ledger_write', arguments: '{"ref":"a"}' }] },
      { text: 'written' },
    );
    model.script('modelCall', { hang: true }, { text: 'asked again' });
    model.script(
      'duringTool',
      { toolCalls: [{ id: 's1', name: 'ledger_slow', arguments: '{"ref":"b"}' }] },
      { text: 'confirmed' },
    );
    await send(first, 'afterTool', sessions.afterTool);
    await first.exited;

    // 2. Killed while the model is asked (the test kills it when the request arrives).
    const second = await start('model-call');
    model.onRequest = (req) => {
      if (req.model === 'modelCall' && model.requestsFor('modelCall').length === 1) void second.kill();
    };
    await send(second, 'modelCall', sessions.modelCall);
    await second.exited;

    // 3. Killed while a side-effecting call is at the remote (its outcome is unknown).
    const third = await start('during-tool', 'during-call:ledger_slow:300');
    await send(third, 'duringTool', sessions.duringTool);
    await third.exited;

    await expireLeases(db.url);
    restarted = await start('restarted');
  }, 240_000);

  afterAll(async () => {
    await restarted?.stop();
    await model?.close();
    await remote?.stop();
    await db?.drop();
  });

  it('asks the model again after a crash during a model call, and finishes the run', async () => {
    const run = await until('modelCall', 'COMPLETED');
    expect(run).toMatchObject({ answer: 'asked again', iterations: 1 });
    expect(model.requestsFor('modelCall')).toHaveLength(2);
    const messages = await ok(
      restarted.call('GET', `/api/v1/sessions/${runs.modelCall.sessionId}/messages`, undefined, runtime),
      200,
    );
    expect(messages.items.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
  }, 120_000);

  it('reuses a side-effecting call that completed before the crash: it ran once, the run finished', async () => {
    const run = await until('afterTool', 'COMPLETED');
    expect(run.answer).toBe('written');
    expect(requestsTo('/ledger_write')).toHaveLength(1);
    const second = model.requestsFor('afterTool')[1];
    expect(second.body.messages.find((m) => m.role === 'tool')).toMatchObject({ tool_call_id: 'w1' });
  }, 120_000);

  it('hands a call cut off mid-flight to a human (UNKNOWN_OUTCOME), never runs it again, and continues after MARK_DONE', async () => {
    const interrupted = await until('duringTool', 'INTERRUPTED');
    expect(interrupted.hitlRequest).toMatchObject({ requestType: 'UNKNOWN_OUTCOME', toolCallId: 's1' });
    expect(requestsTo('/ledger_slow')).toHaveLength(1);

    await ok(
      restarted.call(
        'POST',
        `/api/v1/admin/hitl/${interrupted.hitlRequest.id}/decision`,
        { decision: 'MARK_DONE', message: 'the ledger shows it', reviewer: 'ops' },
        restarted.admin,
      ),
      200,
    );
    const run = await until('duringTool', 'COMPLETED');

    expect(run.answer).toBe('confirmed');
    expect(requestsTo('/ledger_slow')).toHaveLength(1);
    const last = model.requestsFor('duringTool').at(-1)!;
    expect(last.body.messages.find((m) => m.role === 'tool')!.content).toContain('the ledger shows it');
  }, 120_000);
});
