import { DataSource } from 'typeorm';
import { AgentTasksService } from '@app/modules/agent-runs/subagents/agent-tasks.service';
import { SubagentCloseRecoveryJob } from '@app/modules/agent-runs/subagents/subagent-tasks.close-recovery.job';
import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { AGENT_LOOP_ENV, AgentLoopFixture } from './support/agent-loop.fixture';
import { waitFor } from '@test/support/wait-for';
import { heldAnswers } from '@test/support/scripted-model.server';

/**
 * A chain of sub-agents deeper than the instance's workers: each parent waiting in SUB_AGENT_CALL lends its worker's
 * place to another loop, so with one worker the lead, its helper and the helper's helper all run to the end.
 */
describeEachDialect('sub-agents: a SUB_AGENT_CALL chain deeper than TASK_WORKERS', (dialect) => {
  const suite = gatewayForSuite(dialect, {
    ...AGENT_LOOP_ENV,
    SUBAGENT_MAX_DEPTH: '2',
    SUBAGENT_MAX_OPEN_TASKS: '2',
    TASK_WORKERS: '1',
  });
  const fx = new AgentLoopFixture(() => suite.gw);
  const call = (args: Record<string, unknown>) => ({
    toolCalls: [{ id: 'delegate-1', name: 'SUB_AGENT_CALL', arguments: JSON.stringify({ ...args, waitMs: 20_000 }) }],
  });
  const nameOf = async (id: string) =>
    (await suite.gw.http.get(`/api/v1/admin/agents/${id}`).set(suite.gw.admin).expect(200)).body.name as string;

  beforeAll(() => fx.start());
  afterAll(() => fx.stop());

  const builtin = async (name: string) => (await fx.builtinToolIds())[name];

  it('answers through two levels of delegation with a single worker', async () => {
    const subAgentCall = await builtin('SUB_AGENT_CALL');
    const leaf = await fx.agent([]);
    const middle = await fx.agent([subAgentCall], { subAgentIds: [leaf.id] });
    const lead = await fx.agent([subAgentCall], { subAgentIds: [middle.id] });
    fx.model.script(lead.model, call({ agent: await nameOf(middle.id), task: 'ask the leaf' }), {
      text: 'The chain says 42.',
    });
    fx.model.script(middle.model, call({ agent: await nameOf(leaf.id), task: 'the answer?' }), { text: 'leaf: 42' });
    fx.model.script(leaf.model, { text: '42' });

    const sessionId = await fx.session(lead.id);
    const res = await fx.send(sessionId, 'm-chain', 'go').expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'The chain says 42.' });
    const leadTool = fx.model.requestsFor(lead.model)[1].body.messages.find((m) => m.role === 'tool');
    expect(leadTool!.content).toBe('leaf: 42');
    const middleTool = fx.model.requestsFor(middle.model)[1].body.messages.find((m) => m.role === 'tool');
    expect(middleTool!.content).toBe('42');
  });

  it('lends a waiting call its child only: other delegating runs stay queued, TASK_WORKERS still bounds them', async () => {
    const subAgentCall = await builtin('SUB_AGENT_CALL');
    const helper = await fx.agent([]);
    const lead = await fx.agent([subAgentCall], { subAgentIds: [helper.id] });
    const helperName = await nameOf(helper.id);
    const runs: Array<{ sessionId: string; runId: string }> = [];
    const helpers = heldAnswers();
    for (let i = 0; i < 3; i++) {
      fx.model.script(lead.model, call({ agent: helperName, task: `part ${i}` }), { text: `lead ${i} done` });
      fx.model.script(helper.model, { text: `helper ${i}`, until: helpers.until });
    }
    for (let i = 0; i < 3; i++) {
      const sessionId = await fx.session(lead.id);
      const res = await fx.send(sessionId, `bounded-${i}`, 'delegate', false).expect(202);
      runs.push({ sessionId, runId: res.body.runId });
    }
    // The first helper is at the model (held): its lead waits in SUB_AGENT_CALL; the other two leads stay queued (a
    // loop lent to any queued run took them, and they asked the model too).
    try {
      await waitFor(() => fx.model.requestsFor(helper.model).length >= 1, { description: 'the first helper asks' });
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(fx.model.requestsFor(lead.model)).toHaveLength(1);
      expect(fx.model.requestsFor(helper.model)).toHaveLength(1);
    } finally {
      helpers.release();
    }
    for (const r of runs)
      expect((await fx.untilRun(r.sessionId, r.runId, 'COMPLETED', 30_000)).status).toBe('COMPLETED');
  }, 60_000);

  it('holds TASK_WORKERS exactly when a call stops waiting: its lent loop gives the place back before the caller goes on', async () => {
    const helper = await fx.agent([]);
    const lead = await fx.agent([await builtin('SUB_AGENT_CALL')], { subAgentIds: [helper.id] });
    const childRound = heldAnswers();
    const leadRound = heldAnswers();
    // The call waits 3 s while the loop lent to it has the child at the model, whose answer is held past that.
    fx.model.script(
      lead.model,
      {
        toolCalls: [
          {
            id: 'exact-wait',
            name: 'SUB_AGENT_CALL',
            arguments: JSON.stringify({ agent: await nameOf(helper.id), task: 'answer late', waitMs: 3000 }),
          },
        ],
      },
      { text: 'It is still working.', until: leadRound.until },
    );
    fx.model.script(helper.model, { text: 'late', until: childRound.until }, { text: 'finished' });
    const sessionId = await fx.session(lead.id);
    await fx.send(sessionId, 'm-exact', 'delegate', false).expect(202);
    const taskOf = async () =>
      (await suite.gw.http.get(`/api/v1/admin/tasks?parentSessionId=${sessionId}`).set(suite.gw.admin).expect(200)).body
        .items[0];
    try {
      await waitFor(() => fx.model.requestsFor(lead.model).length === 2 || null, {
        timeoutMs: 15_000,
        description: "the lead's round after its call",
      });

      // The only worker's place is the lead's again: its child is not at the model beside it, but back in the queue.
      expect((await taskOf()).status).toBe('QUEUED');
    } finally {
      childRound.release();
      leadRound.release();
    }
    // Once the lead is done, the worker asks the child's round again from its checkpoint.
    const done = await waitFor(async () => ((await taskOf()).status === 'COMPLETED' ? taskOf() : null), {
      timeoutMs: 15_000,
      description: 'the child finished',
    });
    expect(done.answer).toBe('finished');
    // The cut round and the one asked again: the lent loop worked no further round after the wait.
    expect(fx.model.requestsFor(helper.model)).toHaveLength(2);
  });

  it("lends no loop to a runtime's own act: its child waits in the queue for a worker like any run", async () => {
    // The only worker is busy with a run whose model does not answer.
    const busy = await fx.agent([]);
    fx.model.script(busy.model, { hang: true });
    const busySession = await fx.session(busy.id);
    await fx.send(busySession, 'busy', 'take your time', false).expect(202);
    await waitFor(() => fx.model.requestsFor(busy.model).length > 0 || null, { description: 'the busy run' });
    const helper = await fx.agent([]);
    const lead = await fx.agent([await builtin('SUB_AGENT_CALL')], { subAgentIds: [helper.id] });
    fx.model.script(helper.model, { text: 'helper says hi' });
    const sessionId = await fx.session(lead.id);

    try {
      // A runtime's act holds no worker of this instance: waiting, it has no place to lend.
      const res = await suite.gw.http
        .post(`/api/v1/sessions/${sessionId}/act`)
        .set(fx.runtime)
        .send({
          iteration: 1,
          toolCalls: [
            {
              id: 'rt-delegate',
              name: 'SUB_AGENT_CALL',
              arguments: { agent: await nameOf(helper.id), task: 'say hi', waitMs: 1000 },
            },
          ],
        })
        .expect(200);

      expect(JSON.parse(res.body.results[0].content)).toMatchObject({ status: 'QUEUED' });
      expect(fx.model.requestsFor(helper.model)).toHaveLength(0);
    } finally {
      await suite.gw.http.delete(`/api/v1/sessions/${busySession}`).set(fx.runtime).expect(200);
    }
    // The worker, free again, works the child.
    await waitFor(() => fx.model.requestsFor(helper.model).length > 0 || null, { description: 'the child worked' });
  });

  it("lends no loop to a runtime's act on a session whose run this instance works: only the run's own calls lend", async () => {
    const helper = await fx.agent([]);
    const lead = await fx.agent([await builtin('SUB_AGENT_CALL')], { subAgentIds: [helper.id] });
    fx.model.script(helper.model, { text: 'helper says hi' });
    // The only worker works the lead's run, whose model has not answered yet.
    const leadAnswer = heldAnswers();
    fx.model.script(lead.model, { text: 'lead done', until: leadAnswer.until });
    const sessionId = await fx.session(lead.id);
    const run = await fx.send(sessionId, 'm-run', 'go', false).expect(202);
    await waitFor(() => fx.model.requestsFor(lead.model).length > 0 || null, { description: "the lead's run" });

    try {
      // The session's runtime acts meanwhile: its call waits in the runtime's request, not in the run's worker.
      const res = await suite.gw.http
        .post(`/api/v1/sessions/${sessionId}/act`)
        .set(fx.runtime)
        .send({
          iteration: 1,
          toolCalls: [
            {
              id: 'rt-beside-run',
              name: 'SUB_AGENT_CALL',
              arguments: { agent: await nameOf(helper.id), task: 'say hi', waitMs: 1000 },
            },
          ],
        })
        .expect(200);

      expect(fx.model.requestsFor(helper.model)).toHaveLength(0);
      expect(JSON.parse(res.body.results[0].content)).toMatchObject({ status: 'QUEUED' });
    } finally {
      leadAnswer.release();
    }
    await fx.untilRun(sessionId, run.body.runId, 'COMPLETED');
    // The worker, free again, works the child.
    await waitFor(() => fx.model.requestsFor(helper.model).length > 0 || null, { description: 'the child worked' });
  });

  it('refuses a delegation past SUBAGENT_MAX_OPEN_TASKS unfinished tasks with a result the model reads', async () => {
    const helper = await fx.agent([]);
    const lead = await fx.agent([await builtin('SUBMIT_SUBAGENT_TASK')], { subAgentIds: [helper.id] });
    const helperName = await nameOf(helper.id);
    // One turn, three submissions: the only worker works the lead, so the first two tasks are still queued.
    fx.model.script(
      lead.model,
      {
        toolCalls: [1, 2, 3].map((n) => ({
          id: `submit-${n}`,
          name: 'SUBMIT_SUBAGENT_TASK',
          arguments: JSON.stringify({ agent: helperName, task: `part ${n}` }),
        })),
      },
      { text: 'submitted' },
    );
    fx.model.script(helper.model, { text: 'part done' }, { text: 'part done' });

    const sessionId = await fx.session(lead.id);
    expect((await fx.send(sessionId, 'm-cap', 'split it').expect(200)).body).toMatchObject({ status: 'COMPLETED' });

    const results = fx.model.requestsFor(lead.model)[1].body.messages.filter((m) => m.role === 'tool');
    const statusOf = (content: unknown) =>
      String(content).startsWith('{') ? JSON.parse(String(content)).status : null;
    expect(results.map((m) => statusOf(m.content))).toEqual(['QUEUED', 'QUEUED', null]);
    expect(results[2].content).toContain('already has 2 sub-agent tasks unfinished (SUBAGENT_MAX_OPEN_TASKS is 2)');
  });

  it('holds SUBAGENT_MAX_OPEN_TASKS against concurrent submissions: acts racing on one session pass it no further', async () => {
    const helper = await fx.agent([]);
    const lead = await fx.agent([await builtin('SUBMIT_SUBAGENT_TASK')], { subAgentIds: [helper.id] });
    const helperName = await nameOf(helper.id);
    // The children stay open while the submissions race: the only worker's first child waits at the model.
    const childAnswers = heldAnswers();
    for (let n = 0; n < 6; n++) fx.model.script(helper.model, { text: 'part done', until: childAnswers.until });
    const sessionId = await fx.session(lead.id);
    try {
      const answers = await Promise.all(
        [1, 2, 3, 4, 5, 6].map((n) =>
          suite.gw.http
            .post(`/api/v1/sessions/${sessionId}/act`)
            .set(fx.runtime)
            .send({
              iteration: 1,
              toolCalls: [
                { id: `race-${n}`, name: 'SUBMIT_SUBAGENT_TASK', arguments: { agent: helperName, task: 'x' } },
              ],
            })
            .expect(200),
        ),
      );

      const results = answers.map((a) => a.body.results[0]);
      expect(results.filter((r) => r.status === 'COMPLETED')).toHaveLength(2);
      for (const refused of results.filter((r) => r.status !== 'COMPLETED'))
        expect(refused.content).toContain('SUBAGENT_MAX_OPEN_TASKS is 2');
      const tasks = await suite.gw.http
        .get(`/api/v1/admin/tasks?parentSessionId=${sessionId}`)
        .set(suite.gw.admin)
        .expect(200);
      expect(tasks.body.total).toBe(2);
    } finally {
      childAnswers.release();
    }
  }, 60_000);

  it('holds SUBAGENT_MAX_OPEN_TASKS against submissions racing in the service (two instances, two runs of a session)', async () => {
    const helper = await fx.agent([]);
    const lead = await fx.agent([await builtin('SUBMIT_SUBAGENT_TASK')], { subAgentIds: [helper.id] });
    const helperName = await nameOf(helper.id);
    const childAnswers = heldAnswers();
    for (let n = 0; n < 6; n++) fx.model.script(helper.model, { text: 'part done', until: childAnswers.until });
    const sessionId = await fx.session(lead.id);
    const tasks = suite.gw.app.get(AgentTasksService);
    try {
      const submitted = await Promise.allSettled(
        [1, 2, 3, 4, 5, 6].map((n) =>
          tasks.submit({ tenantId: fx.tenantId, sessionId, agentId: lead.id, toolCallId: `svc-${n}` }, helperName, 'x'),
        ),
      );

      expect(submitted.filter((s) => s.status === 'fulfilled')).toHaveLength(2);
      for (const s of submitted.filter((r) => r.status === 'rejected'))
        expect(String(s.reason)).toContain('SUBAGENT_MAX_OPEN_TASKS is 2');
      const db = suite.gw.app.get(DataSource);
      const rows = await db.query('SELECT COUNT(*) AS n FROM agent_task WHERE parent_session_id = ?', [sessionId]);
      expect(Number(rows[0].n)).toBe(2);
      // The children made for the refused ones have no run: none is left ACTIVE (nothing would ever close it).
      const children = await db.query('SELECT status FROM agent_session WHERE agent_id = ?', [helper.id]);
      expect(children.filter((c: { status: string }) => c.status !== 'CLOSED')).toHaveLength(2);
    } finally {
      childAnswers.release();
    }
  }, 60_000);

  it('holds SUBAGENT_MAX_OPEN_TASKS for the whole delegation tree: sibling sessions racing under one root pass it no further', async () => {
    const submit = await builtin('SUBMIT_SUBAGENT_TASK');
    const leaf = await fx.agent([]);
    const middle = await fx.agent([submit], { subAgentIds: [leaf.id] });
    const lead = await fx.agent([submit], { subAgentIds: [middle.id] });
    const [middleName, leafName] = [await nameOf(middle.id), await nameOf(leaf.id)];
    fx.model.script(middle.model, { text: 'ok' }, { text: 'ok' });
    // The leaves stay open while the submissions race: the only worker's first leaf waits at the model.
    const leafAnswers = heldAnswers();
    for (let n = 0; n < 6; n++) fx.model.script(leaf.model, { text: 'leaf done', until: leafAnswers.until });
    const rootId = await fx.session(lead.id);
    const tasks = suite.gw.app.get(AgentTasksService);
    const root = { tenantId: fx.tenantId, sessionId: rootId, agentId: lead.id };
    try {
      // Two children of the root that finished their own runs: their sessions may still delegate.
      const children = [
        await tasks.submit({ ...root, toolCallId: 'root-1' }, middleName, 'x'),
        await tasks.submit({ ...root, toolCallId: 'root-2' }, middleName, 'x'),
      ];
      for (const c of children) await fx.untilRun(c.childSessionId, c.childRunId, 'COMPLETED');

      const submitted = await Promise.allSettled(
        [0, 1, 2, 3, 4, 5].map((n) =>
          tasks.submit(
            {
              tenantId: fx.tenantId,
              sessionId: children[n % 2].childSessionId,
              agentId: middle.id,
              toolCallId: `s-${n}`,
            },
            leafName,
            'y',
          ),
        ),
      );

      expect(submitted.filter((s) => s.status === 'fulfilled')).toHaveLength(2);
      for (const s of submitted.filter((r) => r.status === 'rejected'))
        expect(String(s.reason)).toContain(
          `the delegation tree of root session ${rootId} (which this session belongs to) already has 2 sub-agent tasks unfinished (SUBAGENT_MAX_OPEN_TASKS is 2)`,
        );
      const db = suite.gw.app.get(DataSource);
      const rows = await db.query('SELECT COUNT(*) AS n FROM agent_task WHERE agent_id = ?', [leaf.id]);
      expect(Number(rows[0].n)).toBe(2);
      // The root counts its grandchildren too, though its own tasks have finished.
      await expect(tasks.submit({ ...root, toolCallId: 'root-3' }, middleName, 'x')).rejects.toThrow(
        "this session's delegation tree (its tasks, theirs and so on) already has 2 sub-agent tasks unfinished",
      );
    } finally {
      leafAnswers.release();
    }
  }, 60_000);

  it("leaves no approval of a closed tree pending when the parent's close died before its hooks: recovery closes the tree", async () => {
    const submit = await builtin('SUBMIT_SUBAGENT_TASK');
    const risky = await fx.tool(`refund_deep_${Date.now()}`, { sideEffect: 'SIDE_EFFECT' });
    const leaf = await fx.agent([risky.id], { sideEffectPolicy: 'APPROVE_SIDE_EFFECTS' });
    const middle = await fx.agent([submit], { subAgentIds: [leaf.id] });
    const lead = await fx.agent([submit], { subAgentIds: [middle.id] });
    const submitTo = (agent: string) => ({
      toolCalls: [{ id: 'sub-1', name: 'SUBMIT_SUBAGENT_TASK', arguments: JSON.stringify({ agent, task: 'refund' }) }],
    });
    fx.model.script(lead.model, submitTo(await nameOf(middle.id)), { text: 'queued' });
    fx.model.script(middle.model, submitTo(await nameOf(leaf.id)), { text: 'queued too' });
    fx.model.script(leaf.model, {
      toolCalls: [{ id: 'refund-1', name: risky.name, arguments: JSON.stringify({ q: 'o-9' }) }],
    });
    const tasksOf = async (sessionId: string) =>
      (await suite.gw.http.get(`/api/v1/admin/tasks?parentSessionId=${sessionId}`).set(suite.gw.admin).expect(200)).body
        .items;
    const rootId = await fx.session(lead.id);
    await fx.send(rootId, 'm-deep', 'refund it').expect(200);
    // The middle session finished its run; the leaf under it waits for a human.
    const middleTask = await waitFor(
      async () => (await tasksOf(rootId)).find((t: { status: string }) => t.status === 'COMPLETED'),
      {
        description: 'the middle task finished',
      },
    );
    const leafTask = await waitFor(
      async () =>
        (await tasksOf(middleTask.childSessionId)).find((t: { status: string }) => t.status === 'INTERRUPTED'),
      { description: 'the leaf waits for a human' },
    );
    const request = (await fx.sessionView(leafTask.childSessionId)).hitlRequest;
    const pending = async () =>
      (await suite.gw.http.get('/api/v1/admin/hitl?status=PENDING&pageSize=100').set(suite.gw.admin).expect(200)).body
        .items as Array<{ id: string }>;
    expect((await pending()).map((r) => r.id)).toContain(request.id);
    // The root's close committed; the process died before its close hooks ran.
    await suite.gw.app.get(DataSource).query("UPDATE agent_session SET status = 'CLOSED' WHERE id = ?", [rootId]);

    await suite.gw.app.get(SubagentCloseRecoveryJob).run();

    expect((await pending()).map((r) => r.id)).not.toContain(request.id);
    expect((await fx.sessionView(middleTask.childSessionId)).status).toBe('CLOSED');
    expect((await fx.sessionView(leafTask.childSessionId)).status).toBe('CLOSED');
  });

  it('forgets a deleted sub-agent in the agents that delegated to it', async () => {
    const helper = await fx.agent([]);
    const other = await fx.agent([]);
    const lead = await fx.agent([await builtin('SUB_AGENT_CALL')], { subAgentIds: [helper.id, other.id] });
    await suite.gw.http.delete(`/api/v1/admin/agents/${helper.id}`).set(suite.gw.admin).expect(200);
    const after = await suite.gw.http.get(`/api/v1/admin/agents/${lead.id}`).set(suite.gw.admin).expect(200);
    expect(after.body.subAgentIds).toEqual([other.id]);
    await suite.gw.http.delete(`/api/v1/admin/agents/${other.id}`).set(suite.gw.admin).expect(200);
    const none = await suite.gw.http.get(`/api/v1/admin/agents/${lead.id}`).set(suite.gw.admin).expect(200);
    expect(none.body.subAgentIds).toEqual([]);
  });
});
