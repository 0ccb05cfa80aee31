import { createTestDatabaseUrl, TestDatabase } from '@test/support/test-database';
import { GatewayProcess, startGatewayProcess } from '@test/support/gateway-process';
import { ScriptedModelServer } from '@test/support/scripted-model.server';
import { waitFor } from '@test/support/wait-for';

const TENANT = 'two-instances';
const RUNS = 12;

/**
 * Two gateway processes on one SQLite file, each with two run workers polling the shared queue: every run is
 * worked by one of them once (the model is asked once per run), and no claim fails on the file's lock (a transaction
 * that turned from read to write while the other process wrote failed with "database is locked" before).
 */
describe('agent runs: two instances on one SQLite file', () => {
  let db: TestDatabase;
  let model: ScriptedModelServer;
  const gateways: GatewayProcess[] = [];

  beforeAll(async () => {
    db = await createTestDatabaseUrl('sqlite');
    model = await new ScriptedModelServer().start();
    for (const name of ['a', 'b']) {
      gateways.push(
        await startGatewayProcess({
          databaseUrl: db.url,
          instanceId: `instances-${name}`,
          env: { TASK_WORKERS: '2', RUN_POLL_INTERVAL_MS: '10', OUTBOUND_ALLOW_HOSTS: '127.0.0.1' },
        }),
      );
    }
  }, 120_000);

  afterAll(async () => {
    for (const gw of gateways) await gw.stop();
    await model?.close();
    await db?.drop();
  });

  const ok = async <T = any>(p: Promise<{ status: number; body: T }>, status: number): Promise<T> => {
    const res = await p;
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  };

  it('works every run once, whichever instance took the message', async () => {
    const [a] = gateways;
    const key = await ok(
      a.call('POST', '/api/v1/admin/api-keys', { name: 'rt', role: 'runtime', tenantId: TENANT }, a.admin),
      201,
    );
    const runtime = { Authorization: `Bearer ${key.key}` };
    const provider = await ok(
      a.call(
        'POST',
        '/api/v1/admin/model-providers',
        { name: 'p', tenantId: TENANT, kind: 'OPENAI_COMPATIBLE', baseUrl: model.baseUrl, model: 'm' },
        a.admin,
      ),
      201,
    );
    const agent = await ok(
      a.call('POST', '/api/v1/admin/agents', { name: 'bot', tenantId: TENANT, modelProviderId: provider.id }, a.admin),
      201,
    );
    model.script('m', ...Array.from({ length: RUNS }, (_, i) => ({ text: `answer ${i}`, delayMs: 20 })));
    const runs: Array<{ sessionId: string; runId: string }> = [];
    for (let i = 0; i < RUNS; i++) {
      const gw = gateways[i % 2];
      const session = await ok(
        gw.call('POST', '/api/v1/sessions', { agentId: agent.id, userId: 'u', permissions: [] }, runtime),
        201,
      );
      const sent = await ok(
        gw.call(
          'POST',
          `/api/v1/sessions/${session.id}/messages`,
          { clientMessageId: `m${i}`, content: 'hi' },
          runtime,
        ),
        202,
      );
      runs.push({ sessionId: session.id, runId: sent.runId });
    }

    for (const { sessionId, runId } of runs) {
      const run = await waitFor(
        async () => {
          const view = await ok(a.call('GET', `/api/v1/sessions/${sessionId}/runs/${runId}`, undefined, runtime), 200);
          // Not yet taken by a worker (QUEUED: likely on a loaded machine) or still working: wait.
          return view.status === 'QUEUED' || view.status === 'RUNNING' ? null : view;
        },
        { timeoutMs: 60_000, intervalMs: 50, description: `run ${runId} to stop` },
      );
      expect(run).toMatchObject({ status: 'COMPLETED', answer: expect.stringMatching(/^answer \d+$/) });
    }
    expect(model.requestsFor('m')).toHaveLength(RUNS);
    for (const gw of gateways) expect(gw.outputTail()).not.toMatch(/database is locked|run queue unavailable/);
  }, 120_000);
});
