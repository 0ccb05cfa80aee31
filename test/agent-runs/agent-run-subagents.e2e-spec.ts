import { DataSource, QueryFailedError } from 'typeorm';
import { SessionsService } from '@app/modules/loop-acting/sessions/sessions.service';
import { SessionEventsStore } from '@app/modules/session-events/session-events.store';
import { AgentTasksService } from '@app/modules/agent-runs/subagents/agent-tasks.service';
import { AgentTasksRepository } from '@app/modules/agent-runs/subagents/agent-tasks.repository';
import { SessionRemindersRegistry } from '@app/modules/agent-config/reminders/session-reminders.registry';
import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { waitFor } from '@test/support/wait-for';
import { heldAnswers } from '@test/support/scripted-model.server';
import { callFingerprint } from '@app/modules/loop-acting/journal/journal-fingerprint';
import { canonicalJson } from '@app/common/canonical-json';
import { AGENT_LOOP_ENV, AgentLoopFixture } from './support/agent-loop.fixture';

describeEachDialect('sub-agents: SUB_AGENT_CALL, SUBMIT_SUBAGENT_TASK, CHECK_TASK_STATUS', (dialect) => {
  const suite = gatewayForSuite(dialect, { ...AGENT_LOOP_ENV, SUBAGENT_MAX_DEPTH: '1', TASK_WORKERS: '3' });
  const fx = new AgentLoopFixture(() => suite.gw);
  let builtins: Record<string, string>;
  const call = (name: string, args: Record<string, unknown>, id = `${name}-1`) => ({
    toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
  });
  const agentName = async (id: string) =>
    (await suite.gw.http.get(`/api/v1/admin/agents/${id}`).set(suite.gw.admin).expect(200)).body.name as string;
  const delegatesTo = (id: string, subAgentIds: string[]) =>
    suite.gw.http.patch(`/api/v1/admin/agents/${id}`).set(suite.gw.admin).send({ subAgentIds }).expect(200);
  const tasksOf = async (sessionId: string) =>
    (await suite.gw.http.get(`/api/v1/admin/tasks?parentSessionId=${sessionId}`).set(suite.gw.admin).expect(200)).body
      .items;

  beforeAll(async () => {
    await fx.start();
    builtins = await fx.builtinToolIds();
  });
  afterAll(() => fx.stop());

  const pair = async () => {
    const ids = [builtins.SUB_AGENT_CALL, builtins.SUBMIT_SUBAGENT_TASK, builtins.CHECK_TASK_STATUS];
    const helper = await fx.agent(ids);
    const lead = await fx.agent(ids, { subAgentIds: [helper.id] });
    return { lead, helper, helperName: await agentName(helper.id), leadName: await agentName(lead.id) };
  };

  it('SUB_AGENT_CALL runs a child session of the sub-agent and answers with its final answer', async () => {
    const { lead, helper, helperName } = await pair();
    const sessionId = await fx.session(lead.id);
    fx.model.script(lead.model, call('SUB_AGENT_CALL', { agent: helperName, task: 'count to 3' }), {
      text: 'It said 1 2 3.',
    });
    fx.model.script(helper.model, { text: '1 2 3' });

    const res = await fx.send(sessionId, 'm', 'delegate').expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'It said 1 2 3.' });
    const toolMessage = fx.model.requestsFor(lead.model)[1].body.messages.find((m) => m.role === 'tool');
    expect(toolMessage!.content).toBe('1 2 3');
    const [task] = await tasksOf(sessionId);
    expect(task).toMatchObject({
      status: 'COMPLETED',
      answer: '1 2 3',
      agent: helperName,
      parentSessionId: sessionId,
      parentToolCallId: 'SUB_AGENT_CALL-1',
      depth: 1,
    });
    expect((await fx.messages(task.childSessionId)).map((m) => [m.role, m.content])).toEqual([
      ['user', 'count to 3'],
      ['assistant', '1 2 3'],
    ]);
    await suite.gw.app.get(SessionEventsStore).flush();
    const types = (await fx.events(sessionId)).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['task.submitted', 'task.finished']));
  });

  it("tells the parent's model when the sub-agent's answer was cut at its token limit, and shows it on the task", async () => {
    const { lead, helper, helperName } = await pair();
    const sessionId = await fx.session(lead.id);
    fx.model.script(lead.model, call('SUB_AGENT_CALL', { agent: helperName, task: 'list 100 cities' }), {
      text: 'The list was cut.',
    });
    fx.model.script(helper.model, { text: 'Paris, Rome, Ber', finishReason: 'length' });

    await fx.send(sessionId, 'm-cut', 'delegate').expect(200);

    const toolMessage = fx.model.requestsFor(lead.model)[1].body.messages.find((m) => m.role === 'tool');
    expect(toolMessage!.content).toMatch(/^Paris, Rome, Ber\n\n\[.*cut at its token limit.*\]$/);
    const [task] = await tasksOf(sessionId);
    expect(task).toMatchObject({ status: 'COMPLETED', answer: 'Paris, Rome, Ber', finishReason: 'length' });
  });

  it("gives the child session the parent's capabilities as well as its permissions", async () => {
    const helper = await fx.agent([builtins.LIST_FILES]);
    const lead = await fx.agent([builtins.SUB_AGENT_CALL], { subAgentIds: [helper.id] });
    const parent = await suite.gw.http
      .post('/api/v1/sessions')
      .set(fx.runtime)
      .send({ agentId: lead.id, userId: 'u1', permissions: ['files:read'], capabilities: ['FILE_ROOM'] })
      .expect(201);
    fx.model.script(lead.model, call('SUB_AGENT_CALL', { agent: await agentName(helper.id), task: 'list the files' }), {
      text: 'Listed.',
    });
    fx.model.script(helper.model, { text: 'nothing there' });

    await fx.send(parent.body.id, 'm', 'delegate').expect(200);

    const [child] = await tasksOf(parent.body.id);
    const sessions = await suite.gw.http.get(`/api/v1/admin/sessions?agentId=${helper.id}`).set(suite.gw.admin);
    expect(sessions.body.items).toEqual([
      expect.objectContaining({ id: child.childSessionId, capabilities: ['FILE_ROOM'] }),
    ]);
    const offered = (fx.model.requestsFor(helper.model)[0].body.tools ?? []).map((t) => t.function.name);
    expect(offered).toContain('LIST_FILES');
  });

  it('refuses a sub-agent without a model provider before making it a child session', async () => {
    const idle = await suite.gw.http
      .post('/api/v1/admin/agents')
      .set(suite.gw.admin)
      .send({ name: `no-model-${Date.now()}`, tenantId: fx.tenantId })
      .expect(201);
    const lead = await fx.agent([builtins.SUB_AGENT_CALL], { subAgentIds: [idle.body.id] });
    const sessionId = await fx.session(lead.id);
    fx.model.script(lead.model, call('SUB_AGENT_CALL', { agent: idle.body.name, task: 'x' }), { text: 'gave up' });

    await fx.send(sessionId, 'm', 'delegate').expect(200);

    const tool = fx.model.requestsFor(lead.model)[1].body.messages.find((m) => m.role === 'tool');
    expect(tool!.content).toMatch(/^执行失败: .*has no model provider/);
    // A child session with no run and no task would stay ACTIVE, never closed nor purged, one per attempt.
    const children = await suite.gw.http.get(`/api/v1/admin/sessions?agentId=${idle.body.id}`).set(suite.gw.admin);
    expect(children.body.items).toEqual([]);
  });

  it("counts SUB_AGENT_CALL's answer of a failed child as read: the parent's model is not reminded of it again", async () => {
    const { lead, helper, helperName } = await pair();
    const sessionId = await fx.session(lead.id);
    fx.model.script(lead.model, call('SUB_AGENT_CALL', { agent: helperName, task: 'try it' }), {
      text: 'The helper failed.',
    });
    fx.model.script(helper.model, { status: 400, message: 'this model does not take tools' });

    await fx.send(sessionId, 'm-failed', 'delegate').expect(200);

    const [, second] = fx.model.requestsFor(lead.model).map((r) => r.body.messages);
    const toolMessage = second.find((m) => m.role === 'tool');
    expect(JSON.parse(String(toolMessage!.content))).toMatchObject({ status: 'FAILED' });
    // The next round's system text names no finished task: the model read how this one ended in the call's answer.
    expect(second[0]).toMatchObject({ role: 'system' });
    expect(String(second[0].content)).not.toContain('Sub-agent task');
  });

  it('takes a task of 70,000 characters: the child session describes its head, its run gets it whole', async () => {
    const { lead, helper, helperName } = await pair();
    const sessionId = await fx.session(lead.id);
    const task = `Summarise this: ${'数据库备份'.repeat(14_000)}`;
    fx.model.script(lead.model, call('SUB_AGENT_CALL', { agent: helperName, task }), { text: 'Summarised.' });
    fx.model.script(helper.model, { text: 'a summary' });

    const res = await fx.send(sessionId, 'long', 'delegate a long task').expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'Summarised.' });
    const [child] = await tasksOf(sessionId);
    expect(child).toMatchObject({ status: 'COMPLETED', answer: 'a summary' });
    const session = await fx.sessionView(child.childSessionId);
    expect([...session.task.description]).toHaveLength(4000);
    expect((await fx.messages(child.childSessionId))[0].content).toBe(task);
  });

  it('SUBMIT_SUBAGENT_TASK answers at once; the finished task sends task.finished and a reminder', async () => {
    const { lead, helper, helperName } = await pair();
    const sessionId = await fx.session(lead.id);
    fx.model.script(lead.model, call('SUBMIT_SUBAGENT_TASK', { agent: helperName, task: 'slow work' }), {
      text: 'Queued it.',
    });
    fx.model.script(helper.model, { text: 'slow work done', delayMs: 800 });

    const res = await fx.send(sessionId, 'm1', 'queue it').expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'Queued it.' });
    const submitted = JSON.parse(
      fx.model.requestsFor(lead.model)[1].body.messages.find((m) => m.role === 'tool')!.content,
    );
    expect(submitted).toEqual({ taskId: expect.any(String), status: 'QUEUED' });
    const finished = await waitFor(async () => (await fx.events(sessionId)).find((e) => e.type === 'task.finished'), {
      timeoutMs: 15_000,
    });
    expect(finished.data).toMatchObject({ taskId: submitted.taskId, status: 'COMPLETED' });
    // A runtime with its own loop gets the same reminder from tool-specs with sessionId.
    const specs = await suite.gw.http
      .post(`/api/v1/agents/${lead.id}/tool-specs`)
      .set(fx.runtime)
      .send({ userId: 'ignored', permissions: [], sessionId })
      .expect(200);
    expect(specs.body.reminders).toEqual([
      expect.stringContaining(`Sub-agent task ${submitted.taskId} (${helperName}) finished: COMPLETED`),
    ]);

    const check = await suite.gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(fx.runtime)
      .send({
        iteration: 5,
        toolCalls: [{ id: 'chk', name: 'CHECK_TASK_STATUS', arguments: { taskId: submitted.taskId } }],
      })
      .expect(200);
    expect(JSON.parse(check.body.results[0].content)).toMatchObject({ status: 'COMPLETED', answer: 'slow work done' });

    // The model read the answer: neither a runtime's loop nor the gateway's is reminded of the task again.
    const after = await suite.gw.http
      .post(`/api/v1/agents/${lead.id}/tool-specs`)
      .set(fx.runtime)
      .send({ userId: 'ignored', permissions: [], sessionId })
      .expect(200);
    expect(after.body.reminders).toEqual([]);
    fx.model.script(lead.model, { text: 'noted' });
    await fx.send(sessionId, 'm2', 'anything new?').expect(200);
    const system = fx.model.requestsFor(lead.model)[2].body.messages[0];
    expect(system.role).toBe('system');
    expect(system.content).not.toContain(`Sub-agent task ${submitted.taskId}`);
  });

  it('lists tasks with the head of each answer (GET /admin/tasks), not answers of any size whole', async () => {
    const { lead, helper, helperName } = await pair();
    const sessionId = await fx.session(lead.id);
    const long = 'a'.repeat(100_000);
    fx.model.script(lead.model, call('SUB_AGENT_CALL', { agent: helperName, task: 'write a lot' }), { text: 'Done.' });
    fx.model.script(helper.model, { text: long });

    await fx.send(sessionId, 'm', 'delegate').expect(200);

    const [listed] = await tasksOf(sessionId);
    expect(listed).toMatchObject({ status: 'COMPLETED', answer: long.slice(0, 2_000), answerChars: 100_000 });
  });

  it("sends the parent task.finished for the task's own run only, not for a later message to the child session", async () => {
    const { lead, helper, helperName } = await pair();
    const sessionId = await fx.session(lead.id);
    fx.model.script(lead.model, call('SUB_AGENT_CALL', { agent: helperName, task: 'count to 3' }), { text: 'Done.' });
    fx.model.script(helper.model, { text: '1 2 3' }, { text: 'still here' });
    await fx.send(sessionId, 'm', 'delegate').expect(200);
    const [task] = await tasksOf(sessionId);

    // The child session is a session of the tenant: its runtime may talk to it.
    const later = await fx.send(task.childSessionId, 'later', 'anything else?').expect(200);

    expect(later.body).toMatchObject({ status: 'COMPLETED', answer: 'still here' });
    await suite.gw.app.get(SessionEventsStore).flush();
    const finished = (await fx.events(sessionId)).filter((e) => e.type === 'task.finished');
    expect(finished.map((e) => e.data)).toEqual([
      expect.objectContaining({ taskId: task.taskId, status: 'COMPLETED' }),
    ]);
    expect(await tasksOf(sessionId)).toEqual([expect.objectContaining({ status: 'COMPLETED', answer: '1 2 3' })]);
  });

  it('reminds the model of a task that finished while its round was being prepared, in the next round', async () => {
    const { lead, helper, helperName } = await pair();
    const sessionId = await fx.session(lead.id);
    fx.model.script(helper.model, { hang: true });
    fx.model.script(lead.model, call('SUBMIT_SUBAGENT_TASK', { agent: helperName, task: 'slow work' }), {
      text: 'Queued it.',
    });
    await fx.send(sessionId, 'm1', 'queue it').expect(200);
    const [{ taskId }] = await tasksOf(sessionId);
    const { childRunId } = (await suite.gw.app.get(AgentTasksRepository).find(taskId))!;
    await waitFor(() => fx.model.requestsFor(helper.model).length > 0 || null, { description: 'the child at work' });
    // The task finishes just after the next round's reminders were read (its run is ended here, as its worker would).
    const registry = suite.gw.app.get(SessionRemindersRegistry);
    const remindersFor = registry.remindersFor.bind(registry);
    jest.spyOn(registry, 'remindersFor').mockImplementationOnce(async (session) => {
      const lines = await remindersFor(session);
      await suite.gw.app
        .get(DataSource)
        .query("UPDATE agent_run SET status = 'COMPLETED', answer = 'slow work done' WHERE id = ?", [childRunId]);
      return lines;
    });
    fx.model.script(lead.model, { text: 'Nothing yet.' }, { text: 'It is done.' });

    await fx.send(sessionId, 'm2', 'anything new?').expect(200);
    await fx.send(sessionId, 'm3', 'and now?').expect(200);

    const [, , second, third] = fx.model.requestsFor(lead.model).map((r) => r.body.messages[0].content as string);
    expect(second).not.toContain(`Sub-agent task ${taskId}`);
    expect(third).toContain(`Sub-agent task ${taskId} (${helperName}) finished: COMPLETED`);
  });

  it('keeps reminding a runtime of a finished task until the model reads its answer with CHECK_TASK_STATUS', async () => {
    const { lead, helper, helperName } = await pair();
    const sessionId = await fx.session(lead.id);
    fx.model.script(helper.model, { text: 'work done' });
    const submit = await suite.gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(fx.runtime)
      .send({
        iteration: 1,
        toolCalls: [{ id: 'sub', name: 'SUBMIT_SUBAGENT_TASK', arguments: { agent: helperName, task: 'work' } }],
      })
      .expect(200);
    const { taskId } = JSON.parse(submit.body.results[0].content);
    const reminders = async () =>
      (
        await suite.gw.http
          .post(`/api/v1/agents/${lead.id}/tool-specs`)
          .set(fx.runtime)
          .send({ userId: 'ignored', permissions: [], sessionId })
          .expect(200)
      ).body.reminders as string[];
    await waitFor(async () => (await reminders()).length > 0, { timeoutMs: 15_000, description: 'the reminder' });
    // Asked again (the runtime's next round, no CHECK_TASK_STATUS yet): still there.
    expect(await reminders()).toEqual([expect.stringContaining(`Sub-agent task ${taskId} (${helperName}) finished`)]);
    await suite.gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(fx.runtime)
      .send({ iteration: 2, toolCalls: [{ id: 'chk', name: 'CHECK_TASK_STATUS', arguments: { taskId } }] })
      .expect(200);
    expect(await reminders()).toEqual([]);
  });

  it('gives an agent bound to a delegation tool CHECK_TASK_STATUS, which its answers point to, and says why', async () => {
    const helper = await fx.agent([]);
    const lead = await fx.agent([builtins.SUBMIT_SUBAGENT_TASK], { subAgentIds: [helper.id] });
    const other = await fx.agent([], { subAgentIds: [helper.id] });
    const specs = async (agentId: string) => {
      const res = await suite.gw.http
        .post(`/api/v1/agents/${agentId}/tool-specs`)
        .set(fx.runtime)
        .send({ userId: 'u1', permissions: [], explain: true })
        .expect(200);
      const check = res.body.decisions.find((d: { toolId: string }) => d.toolId === builtins.CHECK_TASK_STATUS);
      return { names: res.body.tools.map((t: { function: { name: string } }) => t.function.name), check };
    };
    const withDelegation = await specs(lead.id);
    expect(withDelegation.names).toEqual(['CHECK_TASK_STATUS', 'READ_TOOL_RESULT', 'SUBMIT_SUBAGENT_TASK']);
    expect(withDelegation.check).toMatchObject({ visible: true, layer: 'EMITTED' });
    expect(withDelegation.check.reason).toContain('comes with SUBMIT_SUBAGENT_TASK, which is bound to this agent');
    // Bound to no delegation tool: nothing brings it.
    expect((await specs(other.id)).check).toMatchObject({ visible: false, layer: 'BOUND' });

    fx.model.script(helper.model, { text: 'work done' });
    const sessionId = await fx.session(lead.id);
    const act = (iteration: number, name: string, args: Record<string, unknown>) =>
      suite.gw.http
        .post(`/api/v1/sessions/${sessionId}/act`)
        .set(fx.runtime)
        .send({ iteration, toolCalls: [{ id: `${name}-${iteration}`, name, arguments: args }] })
        .expect(200);
    const submitted = await act(1, 'SUBMIT_SUBAGENT_TASK', { agent: await agentName(helper.id), task: 'work' });
    const { taskId } = JSON.parse(submitted.body.results[0].content);
    await waitFor(async () => (await tasksOf(sessionId))[0]?.status === 'COMPLETED' || null, {
      timeoutMs: 15_000,
      description: 'the task finished',
    });
    const checked = (await act(2, 'CHECK_TASK_STATUS', { taskId })).body.results[0];
    expect(checked.status).toBe('COMPLETED');
    expect(JSON.parse(checked.content)).toMatchObject({ taskId, status: 'COMPLETED', answer: 'work done' });
    const unknown = (await act(3, 'CHECK_TASK_STATUS', { taskId: 'no-such-task' })).body.results[0];
    expect(unknown).toMatchObject({ status: 'FAILED', isError: true });
    expect(unknown.content).toContain(
      'no task no-such-task was started by this session; give the taskId that SUBMIT_SUBAGENT_TASK answered',
    );
  });

  it('refuses a cycle (A → B → A) and a delegation beyond SUBAGENT_MAX_DEPTH with a result the model reads', async () => {
    const { lead, helper, helperName, leadName } = await pair();
    const third = await fx.agent([]);
    await delegatesTo(helper.id, [lead.id, third.id]);
    const sessionId = await fx.session(lead.id);
    fx.model.script(lead.model, call('SUB_AGENT_CALL', { agent: helperName, task: 'ask back' }), { text: 'done' });
    fx.model.script(
      helper.model,
      call('SUB_AGENT_CALL', { agent: leadName, task: 'loop' }, 'back'),
      call('SUB_AGENT_CALL', { agent: await agentName(third.id), task: 'deeper' }, 'deep'),
      { text: 'could not delegate' },
    );

    const res = await fx.send(sessionId, 'm', 'go').expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'done' });
    const [, afterCycle, afterDepth] = fx.model.requestsFor(helper.model);
    const cycle = afterCycle.body.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'back');
    expect(cycle!.content).toMatch(/^执行失败: .*would make a cycle \(.*→ .*→ .*\)/);
    const depth = afterDepth.body.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'deep');
    expect(depth!.content).toContain('SUBAGENT_MAX_DEPTH allows 1');
    expect(fx.model.requestsFor(third.model)).toHaveLength(0);
    expect(await tasksOf(sessionId)).toHaveLength(1);
  });
  it("does not hold the parent while the child waits for a human; the child's HITL request continues it", async () => {
    const risky = await fx.tool('refund_order', { sideEffect: 'SIDE_EFFECT' });
    const ids = [builtins.SUB_AGENT_CALL, builtins.CHECK_TASK_STATUS];
    const helper = await fx.agent([risky.id], { sideEffectPolicy: 'APPROVE_SIDE_EFFECTS' });
    const lead = await fx.agent(ids, { subAgentIds: [helper.id] });
    const sessionId = await fx.session(lead.id);
    fx.model.script(lead.model, call('SUB_AGENT_CALL', { agent: await agentName(helper.id), task: 'refund o-5' }), {
      text: 'Waiting for approval.',
    });
    fx.model.script(helper.model, call('refund_order', { q: 'o-5' }, 'refund-1'), { text: 'Refunded o-5.' });

    const res = await fx.send(sessionId, 'm', 'refund').expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'Waiting for approval.' });
    const waiting = JSON.parse(
      fx.model.requestsFor(lead.model)[1].body.messages.find((m) => m.role === 'tool')!.content,
    );
    expect(waiting).toEqual({ taskId: expect.any(String), status: 'INTERRUPTED' });
    const [task] = await tasksOf(sessionId);
    const child = await fx.sessionView(task.childSessionId);
    expect(child).toMatchObject({
      status: 'INTERRUPTED',
      hitlRequest: { requestType: 'TOOL_APPROVAL', toolName: 'refund_order' },
    });
    const request = child.hitlRequest;
    expect(request).toBeDefined();

    await suite.gw.http
      .post(`/api/v1/admin/hitl/${request.id}/decision`)
      .set(suite.gw.admin)
      .send({ decision: 'APPROVE', reviewer: 'bob' })
      .expect(200);
    const finished = await waitFor(async () => (await fx.events(sessionId)).find((e) => e.type === 'task.finished'), {
      timeoutMs: 15_000,
    });
    expect(finished.data).toMatchObject({ taskId: waiting.taskId, status: 'COMPLETED' });
    expect((await tasksOf(sessionId))[0]).toMatchObject({ status: 'COMPLETED', answer: 'Refunded o-5.' });
    expect(fx.requestsTo('/refund_order')).toHaveLength(1);
  });

  it('counts a task whose child paused at its iteration budget as CHECK_TASK_STATUS shows it: INTERRUPTED', async () => {
    const tasksGauge = async () => {
      const text = (await suite.gw.http.get('/metrics').expect(200)).text;
      return new Map(
        [...text.matchAll(/^gateway_agent_tasks\{status="(\w+)"\} (\d+)$/gm)].map((m) => [m[1], Number(m[2])]),
      );
    };
    const lookup = await fx.tool('lookup_stock', { httpMethod: 'GET' });
    const helper = await fx.agent([lookup.id], { maxIterations: 1 });
    const lead = await fx.agent([builtins.SUB_AGENT_CALL], { subAgentIds: [helper.id] });
    const sessionId = await fx.session(lead.id);
    fx.model.script(lead.model, call('SUB_AGENT_CALL', { agent: await agentName(helper.id), task: 'check stock' }), {
      text: 'Asked.',
    });
    fx.model.script(helper.model, call('lookup_stock', { q: 'a' }, 's1'), call('lookup_stock', { q: 'b' }, 's2'));
    const before = await tasksGauge();

    await fx.send(sessionId, 'm', 'stock?').expect(200);

    const [task] = await tasksOf(sessionId);
    expect(task).toMatchObject({ status: 'INTERRUPTED' });
    expect(await fx.sessionView(task.childSessionId)).toMatchObject({
      hitlRequest: { requestType: 'CHECKPOINT_PAUSE' },
    });
    const after = await tasksGauge();
    expect(after.get('INTERRUPTED')).toBe((before.get('INTERRUPTED') ?? 0) + 1);
    expect([...after.keys()].sort()).toEqual(['INTERRUPTED', 'QUEUED', 'RUNNING']);
  });

  it('starts one child per parent call: an attempt cut short before its task row is found again when the call is made again', async () => {
    const { lead, helper, helperName } = await pair();
    const sessionId = await fx.session(lead.id);
    fx.model.script(helper.model, { text: 'done once' });
    const tasks = suite.gw.app.get(AgentTasksService);
    const call = { tenantId: fx.tenantId, sessionId, agentId: lead.id, toolCallId: 'submit-cut-short' };
    // The first attempt creates the child session and its run, then loses its connection before the task's row.
    jest
      .spyOn(suite.gw.app.get(AgentTasksRepository), 'insert')
      .mockRejectedValueOnce(new Error('Connection lost: The server closed the connection.'));
    await expect(tasks.submit(call, helperName, 'do it once')).rejects.toThrow('Connection lost');

    const task = await tasks.submit(call, helperName, 'do it once');

    const db = suite.gw.app.get(DataSource);
    const children = await db.query('SELECT id FROM agent_session WHERE agent_id = ?', [helper.id]);
    expect(children.map((c: { id: string }) => c.id)).toEqual([task.childSessionId]);
    const runs = await db.query('SELECT id FROM agent_run WHERE session_id = ?', [task.childSessionId]);
    expect(runs.map((r: { id: string }) => r.id)).toEqual([task.childRunId]);
    expect(await tasks.submit(call, helperName, 'do it once')).toMatchObject({ id: task.id });
    await waitFor(async () => (await tasksOf(sessionId)).find((t: { status: string }) => t.status === 'COMPLETED'), {
      timeoutMs: 15_000,
    });
    expect(fx.model.requestsFor(helper.model)).toHaveLength(1);
  });

  it('never works a child without its task: an attempt cut short before the task row leaves no run behind', async () => {
    const { lead, helper, helperName } = await pair();
    const sessionId = await fx.session(lead.id);
    fx.model.script(helper.model, { text: 'done with a task' });
    const tasks = suite.gw.app.get(AgentTasksService);
    const call = { tenantId: fx.tenantId, sessionId, agentId: lead.id, toolCallId: 'submit-row-lost' };
    jest
      .spyOn(suite.gw.app.get(AgentTasksRepository), 'insert')
      .mockRejectedValueOnce(new Error('Connection lost: The server closed the connection.'));
    await expect(tasks.submit(call, helperName, 'work')).rejects.toThrow('Connection lost');

    // A run no task names would be worked as a root session's: no depth or cycle bound from its parent, not closed
    // with it, and no task.finished for it if it ended before the call was made again.
    const db = suite.gw.app.get(DataSource);
    const unnamed = await db.query(
      `SELECT r.id FROM agent_run r JOIN agent_session s ON s.id = r.session_id
        WHERE s.agent_id = ? AND NOT EXISTS (SELECT 1 FROM agent_task t WHERE t.child_run_id = r.id)`,
      [helper.id],
    );
    expect(unnamed).toEqual([]);

    const task = await tasks.submit(call, helperName, 'work');
    const finished = await waitFor(async () => (await fx.events(sessionId)).find((e) => e.type === 'task.finished'), {
      timeoutMs: 15_000,
    });
    expect(finished.data).toMatchObject({ taskId: task.id, status: 'COMPLETED' });
    expect((await fx.events(sessionId)).filter((e) => e.type === 'task.submitted')).toHaveLength(1);
    expect(fx.model.requestsFor(helper.model)).toHaveLength(1);
  });

  it('SUBMIT_SUBAGENT_TASK made again after a crash (RETRY) answers the status of the task the first attempt started', async () => {
    const { lead, helper, helperName } = await pair();
    const sessionId = await fx.session(lead.id);
    fx.model.script(helper.model, { text: 'finished before the retry' });
    const args = { agent: helperName, task: 'work once' };
    // The first attempt started the task, then its process died before the journal recorded the call's outcome.
    const first = await suite.gw.app
      .get(AgentTasksService)
      .submit(
        { tenantId: fx.tenantId, sessionId, agentId: lead.id, toolCallId: 'submit-crashed' },
        helperName,
        args.task,
      );
    await waitFor(async () => (await tasksOf(sessionId)).find((t: { status: string }) => t.status === 'COMPLETED'), {
      timeoutMs: 15_000,
    });
    const past = Date.now() - 60_000;
    await suite.gw.app.get(DataSource).query(
      `INSERT INTO tool_call_journal (tenant_id, session_id, tool_call_id, tool_name, tool_id, fingerprint, arguments_json, side_effect, state, result_status, attempts, iteration, owner, lease_expires_at, started_at, finished_at, duration_ms, is_error, error_class, content, total_chars, result_chunks, inline_limit)
       VALUES (?, ?, ?, ?, NULL, ?, ?, 'IDEMPOTENT', 'STARTED', NULL, 0, 1, 'dead-instance', ?, ?, NULL, NULL, 0, NULL, NULL, 0, 0, 20000)`,
      [
        fx.tenantId,
        sessionId,
        'submit-crashed',
        'SUBMIT_SUBAGENT_TASK',
        callFingerprint('SUBMIT_SUBAGENT_TASK', args),
        canonicalJson(args),
        past,
        past,
      ],
    );
    const act = await suite.gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(fx.runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'submit-crashed', name: 'SUBMIT_SUBAGENT_TASK', arguments: args }] })
      .expect(200);
    expect(act.body.hitlRequest).toMatchObject({ requestType: 'UNKNOWN_OUTCOME', toolCallId: 'submit-crashed' });

    const retried = await suite.gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(fx.runtime)
      .send({ clientMessageId: 'retry-submit', decision: 'RETRY' })
      .expect(200);

    expect(retried.body.results[0]).toMatchObject({ toolCallId: 'submit-crashed', status: 'COMPLETED' });
    expect(JSON.parse(retried.body.results[0].content)).toEqual({ taskId: first.id, status: 'COMPLETED' });
    expect(await tasksOf(sessionId)).toHaveLength(1);
    expect(fx.model.requestsFor(helper.model)).toHaveLength(1);
  });

  it('starts no task for a parent closed while its delegating call was on its way: nothing would ever close the child', async () => {
    const { lead, helper, helperName } = await pair();
    const sessionId = await fx.session(lead.id);
    fx.model.script(helper.model, { text: 'worked for nobody' });
    // The act passed its session check, then DELETE closed the session (and its open tasks, none yet) before the call.
    await suite.gw.http.delete(`/api/v1/sessions/${sessionId}`).set(fx.runtime).expect(200);

    const submitted = suite.gw.app
      .get(AgentTasksService)
      .submit({ tenantId: fx.tenantId, sessionId, agentId: lead.id, toolCallId: 'late-call' }, helperName, 'work');

    await expect(submitted).rejects.toThrow(`session ${sessionId} is closed`);
    expect(await tasksOf(sessionId)).toEqual([]);
    const db = suite.gw.app.get(DataSource);
    expect(
      await db.query('SELECT r.id FROM agent_run r JOIN agent_session s ON s.id = r.session_id WHERE s.agent_id = ?', [
        helper.id,
      ]),
    ).toEqual([]);
    expect(fx.model.requestsFor(helper.model)).toHaveLength(0);
  });

  it("closing the parent session closes its finished tasks' child sessions too, so retention can purge them", async () => {
    const { lead, helper, helperName } = await pair();
    const sessionId = await fx.session(lead.id);
    fx.model.script(lead.model, call('SUB_AGENT_CALL', { agent: helperName, task: 'quick' }), { text: 'done' });
    fx.model.script(helper.model, { text: 'quick answer' });
    await fx.send(sessionId, 'm', 'delegate').expect(200);
    const [task] = await tasksOf(sessionId);
    expect(task.status).toBe('COMPLETED');

    await suite.gw.http.delete(`/api/v1/sessions/${sessionId}`).set(fx.runtime).expect(200);

    // An ACTIVE child is never purged: every task of every closed session would be kept for good.
    expect((await fx.sessionView(task.childSessionId)).status).toBe('CLOSED');
    expect((await tasksOf(sessionId))[0]).toMatchObject({ status: 'COMPLETED', answer: 'quick answer' });
  });

  it("closing the parent again completes a close whose process died before its hooks: its finished task's child is closed", async () => {
    const { lead, helper, helperName } = await pair();
    const sessionId = await fx.session(lead.id);
    fx.model.script(lead.model, call('SUB_AGENT_CALL', { agent: helperName, task: 'quick' }), { text: 'done' });
    fx.model.script(helper.model, { text: 'quick answer' });
    await fx.send(sessionId, 'm', 'delegate').expect(200);
    const [task] = await tasksOf(sessionId);
    // The close committed; the process died before its close hooks ran (its client got no answer, and asks again).
    await suite.gw.app.get(DataSource).query("UPDATE agent_session SET status = 'CLOSED' WHERE id = ?", [sessionId]);

    const again = await suite.gw.http.delete(`/api/v1/sessions/${sessionId}`).set(fx.runtime).expect(200);

    expect(again.body.status).toBe('CLOSED');
    expect((await fx.sessionView(task.childSessionId)).status).toBe('CLOSED');
  });

  /**
   * A parent session that queued a task; the child's model is being asked its first answer, which comes when the test
   * calls `answer` and asks for a tool (its second would be a further paid request).
   */
  async function parentWithLongTask(): Promise<{ sessionId: string; helper: { model: string }; answer: () => void }> {
    const { lead, helper, helperName } = await pair();
    const sessionId = await fx.session(lead.id);
    fx.model.script(lead.model, call('SUBMIT_SUBAGENT_TASK', { agent: helperName, task: 'long work' }), {
      text: 'Queued.',
    });
    const first = heldAnswers();
    fx.model.script(
      helper.model,
      { ...call('CHECK_TASK_STATUS', { taskId: 'none' }), until: first.until },
      { text: 'more' },
    );
    await fx.send(sessionId, 'm1', 'queue it').expect(200);
    await waitFor(async () => fx.model.requestsFor(helper.model).length === 1 || undefined, { timeoutMs: 15_000 });
    return { sessionId, helper, answer: first.release };
  }

  it("closing the parent session closes its unfinished tasks' child sessions: their runs ask the model nothing more", async () => {
    const { sessionId, helper, answer } = await parentWithLongTask();

    await suite.gw.http.delete(`/api/v1/sessions/${sessionId}`).set(fx.runtime).expect(200);
    answer();

    const [task] = await tasksOf(sessionId);
    expect((await fx.sessionView(task.childSessionId)).status).toBe('CLOSED');
    const stopped = await waitFor(
      async () => (await tasksOf(sessionId)).find((t: { status: string }) => t.status === 'FAILED'),
      { timeoutMs: 15_000 },
    );
    expect(stopped.error).toContain('closed');
    expect(fx.model.requestsFor(helper.model)).toHaveLength(1);
  });

  it('stops a task whose parent was closed by a process that died before closing its children', async () => {
    const { sessionId, helper, answer } = await parentWithLongTask();

    // The close committed; the process died before its close hooks ran, so nothing closed the child session.
    await suite.gw.app.get(DataSource).query("UPDATE agent_session SET status = 'CLOSED' WHERE id = ?", [sessionId]);
    answer();

    const stopped = await waitFor(
      async () => (await tasksOf(sessionId)).find((t: { status: string }) => t.status === 'FAILED'),
      { timeoutMs: 15_000 },
    );
    expect(stopped.error).toContain(`parent session ${sessionId} was closed`);
    expect(fx.model.requestsFor(helper.model)).toHaveLength(1);
    expect((await fx.sessionView(stopped.childSessionId)).status).toBe('CLOSED');
  });

  // The run stopped first, then closed its session: a close the database refused (a deadlock victim) left the task
  // FAILED and its child session ACTIVE for good (nothing closes the children of a closed parent but its close hooks).
  it('closes the child session of a closed parent before stopping its run, so a refused close is made again', async () => {
    const { sessionId, helper, answer } = await parentWithLongTask();
    const [task] = await tasksOf(sessionId);
    const sessions = suite.gw.app.get(SessionsService);
    const close = sessions.close.bind(sessions);
    let refused = 0;
    const spy = jest.spyOn(sessions, 'close').mockImplementation(async (auth, id) => {
      if (id === task.childSessionId && refused === 0) {
        refused++;
        throw new QueryFailedError(
          'UPDATE agent_session ...',
          [],
          Object.assign(new Error('Deadlock found when trying to get lock'), { code: 'ER_LOCK_DEADLOCK', errno: 1213 }),
        );
      }
      return close(auth, id);
    });
    try {
      await suite.gw.app.get(DataSource).query("UPDATE agent_session SET status = 'CLOSED' WHERE id = ?", [sessionId]);
      answer();

      const stopped = await waitFor(
        async () => (await tasksOf(sessionId)).find((t: { status: string }) => t.status === 'FAILED'),
        { timeoutMs: 15_000 },
      );
      expect(refused).toBe(1);
      expect(stopped.error).toContain(`parent session ${sessionId} was closed`);
      expect((await fx.sessionView(task.childSessionId)).status).toBe('CLOSED');
      expect(fx.model.requestsFor(helper.model)).toHaveLength(1);
    } finally {
      spy.mockRestore();
    }
  });
});
