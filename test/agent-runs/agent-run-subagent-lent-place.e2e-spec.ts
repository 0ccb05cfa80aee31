import { DataSource } from 'typeorm';
import { AgentRunQueue } from '@app/modules/agent-runs/agent-run.queue';
import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { waitFor } from '@test/support/wait-for';
import { heldAnswers } from '@test/support/scripted-model.server';
import { AGENT_LOOP_ENV, AgentLoopFixture } from './support/agent-loop.fixture';

/**
 * A SUB_AGENT_CALL lends its waiting worker's place to a loop that works the child. With TASK_WORKERS above one, an idle
 * worker of the instance (woken by the child's queueing, or polling, as another instance's workers do) took the child
 * first: the lent loop idled beside it, and a run queued meanwhile waited for a place until the call's wait ended (two
 * gateway processes on one SQLite file, each with two workers and a delegating run: two more runs waited 30 s).
 */
describeEachDialect('sub-agents: the place a waiting SUB_AGENT_CALL lends', (dialect) => {
  const suite = gatewayForSuite(dialect, { ...AGENT_LOOP_ENV, TASK_WORKERS: '2' });
  const fx = new AgentLoopFixture(() => suite.gw);

  beforeAll(() => fx.start());
  afterAll(() => fx.stop());

  it('works the child on the lent loop, so the free worker takes the next run while the call waits', async () => {
    const ids = await fx.builtinToolIds();
    const helper = await fx.agent([]);
    const lead = await fx.agent([ids.SUB_AGENT_CALL], { subAgentIds: [helper.id] });
    const helperName = (await suite.gw.http.get(`/api/v1/admin/agents/${helper.id}`).set(suite.gw.admin)).body.name;
    const child = heldAnswers();
    const task = JSON.stringify({ agent: helperName, task: 'slow work', waitMs: 20_000 });
    fx.model.script(lead.model, { toolCalls: [{ id: 'delegate', name: 'SUB_AGENT_CALL', arguments: task }] });
    fx.model.script(helper.model, { text: 'done', until: child.until });
    const other = await fx.agent([]);
    fx.model.script(other.model, { text: 'answered meanwhile' });

    // The lent loop's claim of the child waits for the idle worker's next claim: that worker has its chance first.
    const queue = suite.gw.app.get(AgentRunQueue);
    const claim = queue.claim.bind(queue);
    const claimRun = queue.claimRun.bind(queue);
    let claims = 0;
    const claimSpy = jest.spyOn(queue, 'claim').mockImplementation(async (...args) => {
      try {
        return await claim(...args);
      } finally {
        claims++;
      }
    });
    const claimRunSpy = jest.spyOn(queue, 'claimRun').mockImplementation(async (...args) => {
      const before = claims;
      await waitFor(() => claims > before, { description: "an idle worker's claim" });
      return claimRun(...args);
    });
    try {
      await fx.send(await fx.session(lead.id), 'delegate', 'delegate', false).expect(202);
      await waitFor(() => fx.model.requestsFor(helper.model).length === 1 || null, { description: 'the child asks' });
      const [childRun] = await suite.gw.app
        .get(DataSource)
        .query('SELECT owner FROM agent_run WHERE agent_id = ?', [helper.id]);
      expect(childRun.owner).toMatch(/#lent-\d+$/);

      const otherSession = await fx.session(other.id);
      const sent = await fx.send(otherSession, 'other', 'hello', false).expect(202);
      const done = await fx.untilRun(otherSession, sent.body.runId, 'COMPLETED');
      expect(done.answer).toBe('answered meanwhile');
      expect(fx.model.requestsFor(helper.model)).toHaveLength(1);
    } finally {
      claimSpy.mockRestore();
      claimRunSpy.mockRestore();
      child.release();
    }
  }, 60_000);
});
