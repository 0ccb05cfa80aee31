import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';
import { GatewayExit, GatewayProcess, startGatewayProcess } from '@test/support/gateway-process';
import { ScriptedModelServer } from '@test/support/scripted-model.server';
import { expectStatus, RuntimeAuth } from './support/gateway-runtime.seed';
import { untilArmedGatewayDied } from './support/armed-request';
import { eventsOnce, readEvents } from './support/session-events.read';
import { keptEventCount } from './support/kept-events';
import { waitFor } from '@test/support/wait-for';

/*
 * A run's stop commits the run, its last message and the session's status; its `message` and `run.finished` events
 * were written a moment after that commit. The gateway is killed in that moment: the restarted gateway writes both,
 * once, so a runtime replaying the stream learns the run finished.
 */

/** Short, so the restarted gateway's outbox round (every JOURNAL_LEASE_MS) finds the kept events soon. */
const LEASE_MS = 1_000;
const TENANT = 'crash-run-events';
const MODEL = 'run-events';

describeEachDialect('a run stopped by a gateway killed before writing its events', (dialect) => {
  let db: TestDatabase;
  let model: ScriptedModelServer;
  let restarted: GatewayProcess | undefined;
  let runtime: RuntimeAuth;
  let sessionId: string;
  let died: { requestBroke: boolean; exit: GatewayExit };

  const start = (name: string, env: Record<string, string>) =>
    startGatewayProcess({
      databaseUrl: db.url,
      instanceId: `run-events-${name}`,
      env: { RUN_POLL_INTERVAL_MS: '50', JOURNAL_SWEEP_INTERVAL_MS: '0', ...env },
    });

  beforeAll(async () => {
    model = await new ScriptedModelServer().start();
    db = await createTestDatabaseUrl(dialect);
    const first = await start('seed', {});
    const ok = async (path: string, body: unknown, auth: Record<string, string> = first.admin) =>
      expectStatus(await first.call('POST', path, body, auth), 201, `POST ${path}`);
    runtime = {
      Authorization: `Bearer ${(await ok('/api/v1/admin/api-keys', { name: 'rt', role: 'runtime', tenantId: TENANT })).key}`,
    };
    const provider = await ok('/api/v1/admin/model-providers', {
      name: 'p',
      tenantId: TENANT,
      kind: 'OPENAI_COMPATIBLE',
      baseUrl: model.baseUrl,
      model: MODEL,
    });
    const agent = await ok('/api/v1/admin/agents', { name: 'runner', tenantId: TENANT, modelProviderId: provider.id });
    sessionId = (await ok('/api/v1/sessions', { agentId: agent.id, userId: 'u1', permissions: [] }, runtime)).id;
    await first.stop();

    model.script(MODEL, { text: 'All done.' });
    const armed = await start('armed', {
      GATEWAY_FAULT_INJECTION: 'before-event-write:run.finished',
      JOURNAL_LEASE_MS: '60000',
    });
    died = await untilArmedGatewayDied(armed, () =>
      armed.call(
        'POST',
        `/api/v1/sessions/${sessionId}/messages`,
        { clientMessageId: 'm1', content: 'Finish it', wait: true },
        runtime,
      ),
    );
  }, 120_000);

  afterAll(async () => {
    await restarted?.stop();
    await model?.close();
    await db?.drop();
  });

  it('the armed gateway died after the run stopped, before its events were written', () => {
    expect({ broke: died.requestBroke, signal: died.exit.signal }).toEqual({ broke: true, signal: 'SIGKILL' });
    expect(model.requestsFor(MODEL)).toHaveLength(1);
  });

  it('the restarted gateway writes the answer and run.finished once, after the user message', async () => {
    restarted = await start('restarted', { JOURNAL_LEASE_MS: String(LEASE_MS) });
    const events = await eventsOnce(restarted, runtime, sessionId, 'run.finished');
    expect(events.map((e) => [e.seq, e.type, e.data.role ?? e.data.status])).toEqual([
      [1, 'message', 'user'],
      [2, 'message', 'assistant'],
      [3, 'run.finished', 'COMPLETED'],
    ]);
    expect(model.requestsFor(MODEL)).toHaveLength(1);

    // Nothing is left kept to be written again: each stays once.
    await waitFor(async () => (await keptEventCount(db.url)) === 0, { description: 'an empty outbox' });
    expect((await readEvents(restarted, runtime, sessionId)).map((e) => e.seq)).toEqual([1, 2, 3]);
  }, 60_000);
});
