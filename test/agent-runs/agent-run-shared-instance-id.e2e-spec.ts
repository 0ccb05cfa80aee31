import { DataSource } from 'typeorm';
import { AgentRunQueue } from '@app/modules/agent-runs/agent-run.queue';
import { startTestGateway, type TestGateway } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, describeEachDialect, type TestDatabase } from '@test/support/test-database';
import { heldAnswers } from '@test/support/scripted-model.server';
import { waitFor } from '@test/support/wait-for';
import { AGENT_LOOP_ENV, AgentLoopFixture } from './support/agent-loop.fixture';

/**
 * Two gateway processes given one GATEWAY_INSTANCE_ID (one env file for every replica, or a replacement started while
 * the process it replaces still runs): a run one of them took over from the other must not stay writable by the first.
 */
describeEachDialect('agent runs: two instances with one GATEWAY_INSTANCE_ID', (dialect) => {
  let db: TestDatabase;
  const gateways: TestGateway[] = [];
  const fx = new AgentLoopFixture(() => gateways[0]);

  beforeAll(async () => {
    db = await createTestDatabaseUrl(dialect);
    // A lease long enough that no renewal runs during the test: the take-over below is made by expiring it by hand.
    const env = { ...AGENT_LOOP_ENV, GATEWAY_INSTANCE_ID: 'shared-name', TASK_WORKERS: '1', RUN_LEASE_MS: '120000' };
    for (let i = 0; i < 2; i++) gateways.push(await startTestGateway(db.url, env));
    await fx.start();
  }, 240_000);
  afterAll(async () => {
    await fx.stop();
    for (const gw of gateways) await gw.close();
    await db?.drop();
  });

  it('a run taken over by the other instance is no longer held by the first: its renewals and writes are refused', async () => {
    const agent = await fx.agent([]);
    const first = heldAnswers();
    const second = heldAnswers();
    fx.model.script(
      agent.model,
      { text: 'from the first worker', until: first.until },
      { text: 'from the second worker', until: second.until },
    );
    const sessionId = await fx.session(agent.id);
    const { runId } = (await fx.send(sessionId, 'm', 'hello', false).expect(202)).body;
    await waitFor(() => fx.model.requestsFor(agent.model).length === 1 || null, { description: 'the first claim' });
    const db0 = gateways[0].app.get(DataSource);
    const ownerOf = async () => (await db0.query('SELECT owner FROM agent_run WHERE id = ?', [runId]))[0].owner;
    const firstOwner = await ownerOf();

    try {
      // The first worker stalls past its lease; the other instance's idle worker takes the run over.
      await db0.query('UPDATE agent_run SET lease_until = 0 WHERE id = ?', [runId]);
      await waitFor(() => fx.model.requestsFor(agent.model).length === 2 || null, { description: 'the take-over' });

      expect(await ownerOf()).not.toBe(firstOwner);
      expect(await gateways[0].app.get(AgentRunQueue).renew(runId, firstOwner, 1000)).toBe(false);
    } finally {
      first.release();
      second.release();
    }
    const run = await fx.untilRun(sessionId, runId, 'COMPLETED');
    expect(run.answer).toBe('from the second worker');
    const assistant = (await fx.messages(sessionId)).filter((m) => m.role === 'assistant').map((m) => m.content);
    expect(assistant).toEqual(['from the second worker']);
  });
});
