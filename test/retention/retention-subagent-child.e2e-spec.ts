import { DataSource } from 'typeorm';
import { RetentionService } from '@app/modules/retention/retention.service';
import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { AGENT_LOOP_ENV, AgentLoopFixture } from '../agent-runs/support/agent-loop.fixture';

const DAY = 24 * 60 * 60 * 1000;

describeEachDialect(
  "retention keeps a closed child session while its parent, still open, reads its task's answer",
  (dialect) => {
    const suite = gatewayForSuite(dialect, { ...AGENT_LOOP_ENV, RETENTION_DAYS: '30' });
    const fx = new AgentLoopFixture(() => suite.gw);
    let builtins: Record<string, string>;

    beforeAll(async () => {
      await fx.start();
      builtins = await fx.builtinToolIds();
    });
    afterAll(() => fx.stop());

    const tasksOf = async (sessionId: string) =>
      (await suite.gw.http.get(`/api/v1/admin/tasks?parentSessionId=${sessionId}`).set(suite.gw.admin).expect(200)).body
        .items;

    /**
     * A lead agent's session (bound to `tools`) whose SUB_AGENT_CALL `callId`, in message `messageId`, had a helper agent
     * count to three, and the task that made: the parent session goes on, the child's run is over.
     */
    async function parentWhoseChildCounted(tools: string[], callId: string, messageId: string) {
      const helper = await fx.agent(tools);
      const lead = await fx.agent(tools, { subAgentIds: [helper.id] });
      const helperName = (await suite.gw.http.get(`/api/v1/admin/agents/${helper.id}`).set(suite.gw.admin)).body.name;
      const parent = await fx.session(lead.id);
      fx.model.script(
        lead.model,
        {
          toolCalls: [
            { id: callId, name: 'SUB_AGENT_CALL', arguments: JSON.stringify({ agent: helperName, task: 'count' }) },
          ],
        },
        { text: 'It counted.' },
      );
      fx.model.script(helper.model, { text: '1 2 3' });
      await fx.send(parent, messageId, 'delegate').expect(200);
      const [task] = await tasksOf(parent);
      return { parent, task };
    }

    it("a finished task's child session, closed, is not purged while the parent session is open", async () => {
      const { parent, task } = await parentWhoseChildCounted(
        [builtins.SUB_AGENT_CALL, builtins.CHECK_TASK_STATUS],
        'd1',
        'm1',
      );
      expect(task).toMatchObject({ status: 'COMPLETED', answer: '1 2 3' });
      // The runtime tidies up the child session; the parent session goes on (ACTIVE) for months.
      await suite.gw.http.delete(`/api/v1/sessions/${task.childSessionId}`).set(fx.runtime).expect(200);

      await suite.gw.app.get(RetentionService).purge(Date.now() + 31 * DAY);

      expect(await tasksOf(parent)).toEqual([expect.objectContaining({ status: 'COMPLETED', answer: '1 2 3' })]);
      const check = await suite.gw.http
        .post(`/api/v1/sessions/${parent}/act`)
        .set(fx.runtime)
        .send({
          iteration: 1,
          toolCalls: [{ id: 'c1', name: 'CHECK_TASK_STATUS', arguments: { taskId: task.taskId } }],
        })
        .expect(200);
      expect(JSON.parse(check.body.results[0].content)).toMatchObject({ status: 'COMPLETED', answer: '1 2 3' });

      // Once the parent is closed and purged with its tasks, the child session goes too (the next run).
      await suite.gw.http.delete(`/api/v1/sessions/${parent}`).set(fx.runtime).expect(200);
      await suite.gw.app.get(RetentionService).purge(Date.now() + 31 * DAY);
      await suite.gw.app.get(RetentionService).purge(Date.now() + 31 * DAY);
      await suite.gw.http.get(`/api/v1/sessions/${parent}`).set(fx.runtime).expect(404);
      await suite.gw.http.get(`/api/v1/sessions/${task.childSessionId}`).set(fx.runtime).expect(404);
    });

    it("closes the child sessions a parent's close left open (its process died before its close hooks), before purging the parent's tasks", async () => {
      const { parent, task } = await parentWhoseChildCounted([builtins.SUB_AGENT_CALL], 'd2', 'm2');
      expect(task).toMatchObject({ status: 'COMPLETED' });
      // The close committed; the process died before its close hooks closed the finished child (its run is over, so
      // no run of it will ever see the closed parent).
      await suite.gw.app.get(DataSource).query("UPDATE agent_session SET status = 'CLOSED' WHERE id = ?", [parent]);

      await suite.gw.app.get(RetentionService).purge(Date.now() + 31 * DAY);

      // The child is closed as the hooks would have, rather than left ACTIVE for good once its task went with the parent.
      expect((await fx.sessionView(task.childSessionId)).status).toBe('CLOSED');
      expect(await tasksOf(parent)).toHaveLength(1);
      // The next run purges the parent with its task, then the child, no longer any task's.
      await suite.gw.app.get(RetentionService).purge(Date.now() + 62 * DAY);
      await suite.gw.http.get(`/api/v1/sessions/${parent}`).set(fx.runtime).expect(404);
      await suite.gw.http.get(`/api/v1/sessions/${task.childSessionId}`).set(fx.runtime).expect(404);
    });
  },
);
