import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';
import { GatewayExit, GatewayProcess, startGatewayProcess } from '@test/support/gateway-process';
import { ScriptedModelServer } from '@test/support/scripted-model.server';
import { expireLeases } from '@test/crash/support/expire-leases';
import { act, expectStatus, RuntimeAuth, ToolCall } from './support/gateway-runtime.seed';
import { untilArmedGatewayDied } from './support/armed-request';

/*
 * A SUB_AGENT_CALL whose gateway was SIGKILLed (after STARTED, before the child existed; and while the child ran) is
 * made again when the runtime resubmits it: the child is keyed by the toolCallId, so the call finds the child the
 * first attempt started (or starts it), never a second one, and no human is asked about an unknown outcome.
 */

/** Leases longer than the set-up; the set-up expires the killed instances' leases in the database, as time would. */
const LEASE_MS = 120_000;
const TENANT = 'crash-subagent';

type CaseKey = 'afterStarted' | 'duringCall';

interface CrashCase {
  fault: string;
  helper?: { id: string; model: string };
  sessionId?: string;
  call?: ToolCall;
  requestBroke?: boolean;
  exit?: GatewayExit;
}

describeEachDialect('SUB_AGENT_CALL after a kill -9: resubmitted, it finds its child again', (dialect) => {
  const cases: Record<CaseKey, CrashCase> = {
    afterStarted: { fault: 'after-started:SUB_AGENT_CALL' },
    // Killed while the child's model call is still being answered (its first answer takes 5 s).
    duringCall: { fault: 'during-call:SUB_AGENT_CALL:500' },
  };
  const entries = Object.entries(cases) as Array<[CaseKey, CrashCase]>;
  let db: TestDatabase;
  let model: ScriptedModelServer;
  let restarted: GatewayProcess;
  let runtime: RuntimeAuth;

  const start = (name: string, fault = '') =>
    startGatewayProcess({
      databaseUrl: db.url,
      instanceId: `subagent-${name}`,
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

  beforeAll(async () => {
    model = await new ScriptedModelServer().start();
    db = await createTestDatabaseUrl(dialect);
    const first = await start('seed');
    const ok = async (method: 'GET' | 'POST' | 'PUT', path: string, body: unknown, status: number) =>
      expectStatus(await first.call(method, path, body, first.admin), status, `${method} ${path}`);
    runtime = {
      Authorization: `Bearer ${(await ok('POST', '/api/v1/admin/api-keys', { name: 'rt', role: 'runtime', tenantId: TENANT }, 201)).key}`,
    };
    const builtins = await ok('GET', '/api/v1/admin/tools?source=BUILTIN&pageSize=500', undefined, 200);
    const subAgentCall = builtins.items.find((t: { name: string }) => t.name === 'SUB_AGENT_CALL').id;
    for (const [key, c] of entries) {
      const provider = await ok(
        'POST',
        '/api/v1/admin/model-providers',
        { name: `p-${key}`, tenantId: TENANT, kind: 'OPENAI_COMPATIBLE', baseUrl: model.baseUrl, model: key },
        201,
      );
      const helper = await ok(
        'POST',
        '/api/v1/admin/agents',
        { name: `helper-${key}`, tenantId: TENANT, modelProviderId: provider.id },
        201,
      );
      const lead = await ok(
        'POST',
        '/api/v1/admin/agents',
        { name: `lead-${key}`, tenantId: TENANT, subAgentIds: [helper.id] },
        201,
      );
      await ok('PUT', `/api/v1/admin/agents/${lead.id}/tools`, { toolIds: [subAgentCall] }, 200);
      c.helper = { id: helper.id, model: key };
      c.sessionId = expectStatus(
        await first.call('POST', '/api/v1/sessions', { agentId: lead.id, userId: 'u1', permissions: [] }, runtime),
        201,
        'open session',
      ).id;
      c.call = {
        id: `call-${key}`,
        name: 'SUB_AGENT_CALL',
        arguments: { agent: `helper-${key}`, task: 'count to 3', waitMs: 30_000 },
      };
    }
    await first.stop();
    model.script('afterStarted', { text: '1 2 3' });
    model.script('duringCall', { text: '1 2 3 (first)', delayMs: 5000 }, { text: '1 2 3' });

    // One armed process after the other: each killed itself while answering its act.
    for (const [key, c] of entries) {
      const armed = await start(key, c.fault);
      Object.assign(c, await untilArmedGatewayDied(armed, () => act(armed, runtime, c.sessionId!, 1, [c.call!])));
    }

    await expireLeases(db.url);
    restarted = await start('restarted');
  }, 240_000);

  afterAll(async () => {
    await restarted?.stop();
    await model?.close();
    await db?.drop();
  });

  it('each armed gateway killed itself while answering the SUB_AGENT_CALL', async () => {
    for (const [key, c] of entries) {
      expect({ key, broke: c.requestBroke, signal: c.exit?.signal }).toEqual({ key, broke: true, signal: 'SIGKILL' });
    }
    // Killed after STARTED: no child yet. Killed during the call: its child was made (and its run asked the model).
    expect((await get(`/api/v1/admin/tasks?parentSessionId=${cases.afterStarted.sessionId}`)).items).toEqual([]);
    expect((await get(`/api/v1/admin/tasks?parentSessionId=${cases.duringCall.sessionId}`)).items).toHaveLength(1);
    expect(model.requestsFor('duringCall').length).toBeGreaterThanOrEqual(1);
  });

  it.each(entries.map(([key]) => key))(
    '(%s) the resubmitted call runs again without a human and answers with the one child it has',
    async (key) => {
      const c = cases[key];
      const res = await act(restarted, runtime, c.sessionId!, 1, [c.call!]);

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'COMPLETED' });
      expect(res.body.hitlRequest).toBeUndefined();
      expect(res.body.results).toEqual([
        expect.objectContaining({ toolCallId: c.call!.id, status: 'COMPLETED', content: '1 2 3', reused: false }),
      ]);
      const tasks = (await get(`/api/v1/admin/tasks?parentSessionId=${c.sessionId}`)).items;
      expect(tasks).toEqual([expect.objectContaining({ parentToolCallId: c.call!.id, status: 'COMPLETED' })]);
      const children = (await get(`/api/v1/admin/sessions?agentId=${c.helper!.id}`)).items;
      expect(children.map((s: { id: string }) => s.id)).toEqual([tasks[0].childSessionId]);
      expect(
        (await get('/api/v1/admin/hitl?pageSize=100')).items.filter(
          (r: { sessionId: string }) => r.sessionId === c.sessionId,
        ),
      ).toEqual([]);

      const again = await act(restarted, runtime, c.sessionId!, 2, [c.call!]);
      expect(again.body.results[0]).toMatchObject({ status: 'COMPLETED', content: '1 2 3', reused: true });
    },
    120_000,
  );
});
