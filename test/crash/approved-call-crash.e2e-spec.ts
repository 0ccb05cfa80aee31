import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';
import { GatewayExit, GatewayProcess, startGatewayProcess } from '@test/support/gateway-process';
import { ScriptedModelServer } from '@test/support/scripted-model.server';
import { expireLeases } from '@test/crash/support/expire-leases';
import { CrashRemoteServer } from './support/crash-remote.server';
import { act, expectStatus, resume, RuntimeAuth, ToolCall } from './support/gateway-runtime.seed';
import { untilArmedGatewayDied } from './support/armed-request';

/*
 * A call a human approved, cut off by a SIGKILL while it ran, is one that runs again on its own after a crash
 * (a SUB_AGENT_CALL, whose child is keyed by the toolCallId; a READ_ONLY call). The resume sent again after the restart
 * carries the approval out: it runs the call again without asking the human a second time, and the SUB_AGENT_CALL
 * finds the child its first attempt started instead of starting another.
 */

/** Leases longer than the set-up; the set-up expires the killed instances' leases in the database, as time would. */
const LEASE_MS = 120_000;
const TENANT = 'crash-approved';
/** Text the risk detector flags in any argument: each call below needs approval. */
const RISKY = 'rm -rf /';

type CaseKey = 'subAgent' | 'readOnly';

interface CrashCase {
  fault: string;
  sessionId?: string;
  call?: ToolCall;
  /** The resume sent after the restart: the killed one's clientMessageId again, or a new one (the first was lost). */
  clientMessageId: string;
  resumeAgain: string;
  requestBroke?: boolean;
  exit?: GatewayExit;
}

describeEachDialect('an approved call cut off by a kill -9 is not approved twice', (dialect) => {
  const cases: Record<CaseKey, CrashCase> = {
    // Killed while the child's model call is still being answered (its first answer takes 5 s), 2 s into the call.
    subAgent: { fault: 'during-call:SUB_AGENT_CALL:2000', clientMessageId: 'approve-sub', resumeAgain: 'approve-sub' },
    // Killed while the remote still answers (its first request takes 5 s).
    readOnly: { fault: 'during-call:lookup_risky:300', clientMessageId: 'approve-ro', resumeAgain: 'approve-ro-2' },
  };
  const entries = Object.entries(cases) as Array<[CaseKey, CrashCase]>;
  let db: TestDatabase;
  let model: ScriptedModelServer;
  let remote: CrashRemoteServer;
  let restarted: GatewayProcess;
  let runtime: RuntimeAuth;
  let helperId: string;
  const ref = `${dialect}-ro`;

  const start = (name: string, fault = '') =>
    startGatewayProcess({
      databaseUrl: db.url,
      instanceId: `approved-${name}`,
      env: {
        GATEWAY_FAULT_INJECTION: fault,
        JOURNAL_LEASE_MS: String(LEASE_MS),
        RUN_LEASE_MS: String(LEASE_MS),
        RUN_POLL_INTERVAL_MS: '50',
        OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
        JOURNAL_SWEEP_INTERVAL_MS: '0',
      },
    });
  const get = async (path: string) =>
    expectStatus(await restarted.call('GET', path, undefined, restarted.admin), 200, path);
  const requestsOf = async (sessionId: string) =>
    (await get('/api/v1/admin/hitl?pageSize=100')).items.filter(
      (r: { sessionId: string }) => r.sessionId === sessionId,
    );

  beforeAll(async () => {
    model = await new ScriptedModelServer().start();
    remote = await new CrashRemoteServer().start();
    db = await createTestDatabaseUrl(dialect);
    const first = await start('seed');
    const ok = async (method: 'GET' | 'POST' | 'PUT', path: string, body: unknown, status: number) =>
      expectStatus(await first.call(method, path, body, first.admin), status, `${method} ${path}`);
    runtime = {
      Authorization: `Bearer ${(await ok('POST', '/api/v1/admin/api-keys', { name: 'rt', role: 'runtime', tenantId: TENANT }, 201)).key}`,
    };
    const builtins = await ok('GET', '/api/v1/admin/tools?source=BUILTIN&pageSize=500', undefined, 200);
    const subAgentCall = builtins.items.find((t: { name: string }) => t.name === 'SUB_AGENT_CALL').id;
    const lookup = await ok(
      'POST',
      '/api/v1/admin/tools',
      {
        name: 'lookup_risky',
        description: 'A READ_ONLY lookup whose note may hold anything',
        parameters: {
          type: 'object',
          properties: { ref: { type: 'string' }, delayMs: { type: 'integer' }, note: { type: 'string' } },
          required: ['ref'],
        },
        serviceType: 'HTTP',
        httpMethod: 'POST',
        endpoint: remote.url('/lookup'),
        sideEffect: 'READ_ONLY',
        permissionTags: [],
        tenantId: TENANT,
      },
      201,
    );
    const provider = await ok(
      'POST',
      '/api/v1/admin/model-providers',
      { name: 'p', tenantId: TENANT, kind: 'OPENAI_COMPATIBLE', baseUrl: model.baseUrl, model: 'helper' },
      201,
    );
    helperId = (
      await ok('POST', '/api/v1/admin/agents', { name: 'helper', tenantId: TENANT, modelProviderId: provider.id }, 201)
    ).id;
    const lead = await ok(
      'POST',
      '/api/v1/admin/agents',
      { name: 'lead', tenantId: TENANT, subAgentIds: [helperId] },
      201,
    );
    await ok('PUT', `/api/v1/admin/agents/${lead.id}/tools`, { toolIds: [subAgentCall, lookup.id] }, 200);
    cases.subAgent.call = {
      id: 'call-sub',
      name: 'SUB_AGENT_CALL',
      arguments: { agent: 'helper', task: RISKY, waitMs: 30_000 },
    };
    cases.readOnly.call = { id: 'call-ro', name: 'lookup_risky', arguments: { ref, delayMs: 5000, note: RISKY } };
    for (const [, c] of entries) {
      c.sessionId = expectStatus(
        await first.call('POST', '/api/v1/sessions', { agentId: lead.id, userId: 'u1', permissions: [] }, runtime),
        201,
        'open session',
      ).id;
      const asked = expectStatus(await act(first, runtime, c.sessionId!, 1, [c.call!]), 200, 'act');
      expect(asked.hitlRequest).toMatchObject({ requestType: 'TOOL_APPROVAL', toolCallId: c.call!.id });
    }
    await first.stop();
    model.script('helper', { text: '1 2 3 (first)', delayMs: 5000 }, { text: '1 2 3' });

    // One armed process after the other: each killed itself while running the call its resume approved.
    for (const [key, c] of entries) {
      const armed = await start(key, c.fault);
      Object.assign(
        c,
        await untilArmedGatewayDied(armed, () =>
          resume(armed, runtime, c.sessionId!, { clientMessageId: c.clientMessageId, decision: 'APPROVE' }),
        ),
      );
    }

    await expireLeases(db.url);
    restarted = await start('restarted');
  }, 240_000);

  afterAll(async () => {
    await restarted?.stop();
    await model?.close();
    await remote?.stop();
    await db?.drop();
  });

  it('each armed gateway killed itself while running the approved call', async () => {
    for (const [key, c] of entries) {
      expect({ key, broke: c.requestBroke, signal: c.exit?.signal }).toEqual({ key, broke: true, signal: 'SIGKILL' });
    }
    expect((await get(`/api/v1/admin/tasks?parentSessionId=${cases.subAgent.sessionId}`)).items).toHaveLength(1);
    expect(remote.hits(ref)).toBe(1);
  });

  it('the SUB_AGENT_CALL resumed again runs without a second approval and answers with the one child it has', async () => {
    const c = cases.subAgent;
    const res = await resume(restarted, runtime, c.sessionId!, { clientMessageId: c.resumeAgain, decision: 'APPROVE' });

    expect(res.status).toBe(200);
    expect(res.body.hitlRequest).toBeUndefined();
    expect(res.body).toMatchObject({ status: 'COMPLETED' });
    expect(res.body.results).toEqual([
      expect.objectContaining({ toolCallId: c.call!.id, status: 'COMPLETED', content: '1 2 3' }),
    ]);
    expect(await requestsOf(c.sessionId!)).toEqual([
      expect.objectContaining({ requestType: 'TOOL_APPROVAL', toolCallId: c.call!.id, status: 'DECIDED' }),
    ]);
    const tasks = (await get(`/api/v1/admin/tasks?parentSessionId=${c.sessionId}`)).items;
    expect(tasks).toEqual([expect.objectContaining({ parentToolCallId: c.call!.id, status: 'COMPLETED' })]);
    const children = (await get(`/api/v1/admin/sessions?agentId=${helperId}`)).items;
    expect(children.map((s: { id: string }) => s.id)).toEqual([tasks[0].childSessionId]);
  }, 120_000);

  it('the READ_ONLY call resumed with a new clientMessageId runs again without a second approval', async () => {
    const c = cases.readOnly;
    const res = await resume(restarted, runtime, c.sessionId!, { clientMessageId: c.resumeAgain, decision: 'APPROVE' });

    expect(res.status).toBe(200);
    expect(res.body.hitlRequest).toBeUndefined();
    expect(res.body.results).toEqual([expect.objectContaining({ toolCallId: c.call!.id, status: 'COMPLETED' })]);
    expect(await requestsOf(c.sessionId!)).toEqual([
      expect.objectContaining({ requestType: 'TOOL_APPROVAL', toolCallId: c.call!.id, status: 'DECIDED' }),
    ]);
    expect(remote.hits(ref)).toBe(2);
    const session = await restarted.call('GET', `/api/v1/sessions/${c.sessionId}`, undefined, runtime);
    expect(session.body).toMatchObject({ status: 'ACTIVE', hitlPending: false });
  }, 60_000);
});
