import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { heldAnswers } from '@test/support/scripted-model.server';
import { AGENT_LOOP_ENV, AgentLoopFixture } from './support/agent-loop.fixture';

describeEachDialect('agent runs stop for a human and continue after the decision', (dialect) => {
  const suite = gatewayForSuite(dialect, AGENT_LOOP_ENV);
  const fx = new AgentLoopFixture(() => suite.gw);
  let lookup: { id: string };
  let cancel: { id: string };

  beforeAll(async () => {
    await fx.start();
    lookup = await fx.tool('lookup_order', { httpMethod: 'GET' });
    cancel = await fx.tool('cancel_order', { sideEffect: 'SIDE_EFFECT' });
  });
  afterAll(() => fx.stop());

  /** `gateway_agent_runs` of the runs waiting for a human, as /metrics reports them. */
  const waitingRuns = async () => {
    const text = (await suite.gw.http.get('/metrics').expect(200)).text;
    const count = (status: string) =>
      Number(new RegExp(`^gateway_agent_runs\\{status="${status}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
    return { PAUSED: count('PAUSED'), INTERRUPTED: count('INTERRUPTED') };
  };

  /** A run whose model asks for cancel_order first: INTERRUPTED for approval. */
  const interruptedRun = async (overrides: Record<string, unknown> = {}) => {
    const agent = await fx.agent([lookup.id, cancel.id], { sideEffectPolicy: 'APPROVE_SIDE_EFFECTS', ...overrides });
    const sessionId = await fx.session(agent.id);
    fx.model.script(
      agent.model,
      {
        toolCalls: [
          { id: 'c1', name: 'cancel_order', arguments: '{"q":"o-9"}' },
          { id: 'c2', name: 'lookup_order', arguments: '{"q":"o-9"}' },
        ],
      },
      { text: 'Cancelled o-9.' },
    );
    const res = await fx.send(sessionId, 'm1', 'Cancel o-9').expect(200);
    return { agent, sessionId, res };
  };

  it('interrupts on an approval; a runtime resume continues the same run to its answer', async () => {
    const before = fx.requestsTo('/cancel_order').length;
    const { agent, sessionId, res } = await interruptedRun();

    expect(res.body).toMatchObject({
      status: 'INTERRUPTED',
      iterations: 1,
      hitlRequest: { requestType: 'TOOL_APPROVAL', toolCallId: 'c1', toolName: 'cancel_order' },
    });
    expect(fx.requestsTo('/cancel_order')).toHaveLength(before);
    expect((await fx.sessionView(sessionId)).status).toBe('INTERRUPTED');
    expect((await fx.send(sessionId, 'm2', 'anything?').expect(409)).body.error.code).toBe('RUN_IN_PROGRESS');
    const stops = (await fx.events(sessionId)).filter((e) => e.type === 'run.finished');
    expect(stops.map((e) => e.data)).toEqual([{ runId: res.body.runId, status: 'INTERRUPTED' }]);
    const interruptedNow = async () => {
      const text = (await suite.gw.http.get('/metrics').expect(200)).text;
      return Number(/^gateway_agent_runs\{status="INTERRUPTED"\} (\d+)$/m.exec(text)?.[1]);
    };
    const waiting = await interruptedNow();
    expect(waiting).toBeGreaterThanOrEqual(1);

    await suite.gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(fx.runtime)
      .send({ clientMessageId: 'r1', toolCallId: 'c1', decision: 'APPROVE' })
      .expect(200);
    const done = await fx.untilRun(sessionId, res.body.runId, 'COMPLETED');

    expect(done).toMatchObject({ answer: 'Cancelled o-9.', iterations: 2 });
    expect(fx.requestsTo('/cancel_order')).toHaveLength(before + 1);
    const second = fx.model.requestsFor(agent.model)[1];
    expect(second.body.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(['c1', 'c2']);
    expect((await fx.sessionView(sessionId)).status).toBe('ACTIVE');
    const all = (await fx.events(sessionId)).filter((e) => e.type === 'run.finished').map((e) => e.data.status);
    expect(all).toEqual(['INTERRUPTED', 'COMPLETED']);
    expect(await interruptedNow()).toBe(waiting - 1);
  });

  it('shows no request on a run that goes on after its decision', async () => {
    const held = heldAnswers();
    const agent = await fx.agent([cancel.id], { sideEffectPolicy: 'APPROVE_SIDE_EFFECTS' });
    const sessionId = await fx.session(agent.id);
    fx.model.script(
      agent.model,
      { toolCalls: [{ id: 'c1', name: 'cancel_order', arguments: '{"q":"o-9"}' }] },
      { text: 'Cancelled o-9.', until: held.until },
    );
    const res = await fx.send(sessionId, 'm1', 'Cancel o-9').expect(200);
    expect(res.body.hitlRequest).toMatchObject({ toolCallId: 'c1' });
    await suite.gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(fx.runtime)
      .send({ clientMessageId: 'r1', toolCallId: 'c1', decision: 'APPROVE' })
      .expect(200);

    // Its model is asked again (held): the run works, and the request it stopped for is decided.
    const running = await fx.untilRun(sessionId, res.body.runId, 'RUNNING');
    held.release();

    expect(running.hitlRequest).toBeUndefined();
    expect(await fx.untilRun(sessionId, res.body.runId, 'COMPLETED')).not.toHaveProperty('hitlRequest');
  });

  it("runs a call left waiting behind an approval as its model's format reads it: an arguments_json key stays", async () => {
    const labels = await fx.tool('set_labels', {
      parameters: { type: 'object', additionalProperties: { type: 'string' } },
    });
    const agent = await fx.agent([cancel.id, labels.id], { sideEffectPolicy: 'APPROVE_SIDE_EFFECTS' });
    const sessionId = await fx.session(agent.id);
    const before = fx.requestsTo('/set_labels').length;
    fx.model.script(
      agent.model,
      {
        toolCalls: [
          { id: 'c1', name: 'cancel_order', arguments: '{"q":"o-10"}' },
          { id: 'c2', name: 'set_labels', arguments: JSON.stringify({ arguments_json: '{"state":"cancelled"}' }) },
        ],
      },
      { text: 'Cancelled and labelled.' },
    );
    const res = await fx.send(sessionId, 'm1', 'Cancel o-10 and label it').expect(200);
    expect(res.body).toMatchObject({ status: 'INTERRUPTED', hitlRequest: { toolCallId: 'c1' } });

    await suite.gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(fx.runtime)
      .send({ clientMessageId: 'r1', toolCallId: 'c1', decision: 'APPROVE' })
      .expect(200);
    await fx.untilRun(sessionId, res.body.runId, 'COMPLETED');

    // The run's model was given the OpenAI spec: its map holds a label named arguments_json, sent as it is.
    const [sent] = fx.requestsTo('/set_labels').slice(before);
    expect(JSON.parse(sent.body)).toEqual({ arguments_json: '{"state":"cancelled"}' });
  });

  it("shows the session's current request while the run waits: a resume that approves one call may stop at the next", async () => {
    const agent = await fx.agent([cancel.id], { sideEffectPolicy: 'APPROVE_SIDE_EFFECTS' });
    const sessionId = await fx.session(agent.id);
    fx.model.script(
      agent.model,
      {
        toolCalls: [
          { id: 'd1', name: 'cancel_order', arguments: '{"q":"o-1"}' },
          { id: 'd2', name: 'cancel_order', arguments: '{"q":"o-2"}' },
        ],
      },
      { text: 'Both cancelled.' },
    );
    const res = await fx.send(sessionId, 'two', 'Cancel o-1 and o-2').expect(200);
    expect(res.body.hitlRequest).toMatchObject({ toolCallId: 'd1' });

    const resumed = await suite.gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(fx.runtime)
      .send({ clientMessageId: 'd1-ok', toolCallId: 'd1', decision: 'APPROVE' })
      .expect(200);
    expect(resumed.body.hitlRequest).toMatchObject({ toolCallId: 'd2' });
    const waiting = await fx.run(sessionId, res.body.runId);
    expect(waiting).toMatchObject({ status: 'INTERRUPTED', hitlRequest: { id: resumed.body.hitlRequest.id } });

    await suite.gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(fx.runtime)
      .send({ clientMessageId: 'd2-ok', toolCallId: 'd2', decision: 'APPROVE' })
      .expect(200);
    expect(await fx.untilRun(sessionId, res.body.runId, 'COMPLETED')).toMatchObject({ answer: 'Both cancelled.' });
  });

  it('continues after an admin decision: a rejection is fed to the model as the result', async () => {
    const before = fx.requestsTo('/cancel_order').length;
    const { agent, sessionId, res } = await interruptedRun({ hitlReviewer: 'ADMIN' });

    await suite.gw.http
      .post(`/api/v1/admin/hitl/${res.body.hitlRequest.id}/decision`)
      .set(suite.gw.admin)
      .send({ decision: 'REJECT', message: 'not without the customer', reviewer: 'alice' })
      .expect(200);
    await fx.untilRun(sessionId, res.body.runId, 'COMPLETED');

    expect(fx.requestsTo('/cancel_order')).toHaveLength(before);
    const second = fx.model.requestsFor(agent.model)[1];
    const rejected = second.body.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'c1');
    expect(rejected!.content).toContain('not without the customer');
  });

  it("answers a failed run's pending calls in the conversation, so the session's next run is one a model accepts", async () => {
    const { agent, sessionId, res } = await interruptedRun();
    // The provider goes while the run waits: the approval runs both calls, then the run fails on waking.
    await suite.gw.http.delete(`/api/v1/admin/model-providers/${agent.providerId}`).set(suite.gw.admin).expect(200);
    await suite.gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(fx.runtime)
      .send({ clientMessageId: 'r-gone', toolCallId: 'c1', decision: 'APPROVE' })
      .expect(200);
    const failed = await fx.untilRun(sessionId, res.body.runId, 'FAILED');
    expect(failed.error).toContain('no longer exists');
    const provider = await suite.gw.http
      .post('/api/v1/admin/model-providers')
      .set(suite.gw.admin)
      .send({
        name: `p2-${agent.model}`,
        tenantId: fx.tenantId,
        kind: 'OPENAI_COMPATIBLE',
        baseUrl: fx.model.baseUrl,
        apiKey: '${secret:MODEL_KEY}',
        model: agent.model,
      })
      .expect(201);
    await suite.gw.http
      .patch(`/api/v1/admin/agents/${agent.id}`)
      .set(suite.gw.admin)
      .send({ modelProviderId: provider.body.id })
      .expect(200);
    fx.model.script(agent.model, { text: 'o-9 is cancelled.' });

    await fx.send(sessionId, 'm2', 'Did it work?').expect(200);

    // Every tool call the model is shown has its answer right after it (OpenAI refuses a conversation without).
    const sent = fx.model.requestsFor(agent.model).at(-1)!.body.messages;
    const calls = sent.findIndex((m) => m.role === 'assistant' && m.tool_calls);
    expect(sent.slice(calls + 1, calls + 3)).toEqual([
      expect.objectContaining({ role: 'tool', tool_call_id: 'c1', content: expect.stringContaining('"ok":true') }),
      expect.objectContaining({ role: 'tool', tool_call_id: 'c2', content: expect.stringContaining('"ok":true') }),
    ]);
  });

  it('pauses at the iteration budget (CHECKPOINT_PAUSE) and continues on resume', async () => {
    const agent = await fx.agent([lookup.id], { maxIterations: 1 });
    const sessionId = await fx.session(agent.id);
    const before = fx.requestsTo('/lookup_order').length;
    fx.model.script(
      agent.model,
      { toolCalls: [{ id: 'i1', name: 'lookup_order', arguments: '{"q":"a"}' }] },
      { toolCalls: [{ id: 'i2', name: 'lookup_order', arguments: '{"q":"b"}' }] },
      { text: 'Both looked up.' },
    );

    const paused = await fx.send(sessionId, 'p', 'Look a and b up').expect(200);

    expect(paused.body).toMatchObject({
      status: 'PAUSED',
      iterations: 2,
      hitlRequest: { requestType: 'CHECKPOINT_PAUSE' },
    });
    expect(fx.requestsTo('/lookup_order')).toHaveLength(before + 1);
    const view = await fx.sessionView(sessionId);
    expect(view).toMatchObject({ status: 'INTERRUPTED', hitlRequest: { requestType: 'CHECKPOINT_PAUSE' } });

    await suite.gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(fx.runtime)
      .send({ clientMessageId: 'go' })
      .expect(200);
    const done = await fx.untilRun(sessionId, paused.body.runId, 'COMPLETED');

    expect(done).toMatchObject({ answer: 'Both looked up.', iterations: 3 });
    expect(fx.requestsTo('/lookup_order')).toHaveLength(before + 2);
  });

  it('shows a paused run INTERRUPTED once the resume of its pause stops at a call that needs approval', async () => {
    const agent = await fx.agent([lookup.id, cancel.id], {
      maxIterations: 1,
      sideEffectPolicy: 'APPROVE_SIDE_EFFECTS',
    });
    const sessionId = await fx.session(agent.id);
    fx.model.script(
      agent.model,
      { toolCalls: [{ id: 'q1', name: 'lookup_order', arguments: '{"q":"o-3"}' }] },
      { toolCalls: [{ id: 'q2', name: 'cancel_order', arguments: '{"q":"o-3"}' }] },
      { text: 'Cancelled o-3.' },
    );
    const paused = await fx.send(sessionId, 'budget', 'Look o-3 up and cancel it').expect(200);
    expect(paused.body).toMatchObject({ status: 'PAUSED', hitlRequest: { requestType: 'CHECKPOINT_PAUSE' } });
    const whilePaused = await waitingRuns();

    const resumed = await suite.gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(fx.runtime)
      .send({ clientMessageId: 'go-on' })
      .expect(200);
    expect(resumed.body.hitlRequest).toMatchObject({ requestType: 'TOOL_APPROVAL', toolCallId: 'q2' });

    // A client shows what the run waits for: an approval now, not the pause its "continue" already answered.
    expect(await fx.run(sessionId, paused.body.runId)).toMatchObject({
      status: 'INTERRUPTED',
      hitlRequest: { id: resumed.body.hitlRequest.id, requestType: 'TOOL_APPROVAL' },
    });
    // So does /metrics: the run stored PAUSED counts as INTERRUPTED, as it is shown.
    expect(await waitingRuns()).toEqual({
      PAUSED: whilePaused.PAUSED - 1,
      INTERRUPTED: whilePaused.INTERRUPTED + 1,
    });
    await suite.gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(fx.runtime)
      .send({ clientMessageId: 'q2-ok', toolCallId: 'q2', decision: 'APPROVE' })
      .expect(200);
    expect(await fx.untilRun(sessionId, paused.body.runId, 'COMPLETED')).toMatchObject({ answer: 'Cancelled o-3.' });
  });

  it('counts a round whose tool names are all invalid toward the budget: a model making names up is paused', async () => {
    const agent = await fx.agent([lookup.id], { maxIterations: 2 });
    const sessionId = await fx.session(agent.id);
    const madeUp = (id: string) => ({ toolCalls: [{ id, name: 'functions.lookup_order', arguments: '{"q":"a"}' }] });
    fx.model.script(agent.model, madeUp('x1'), madeUp('x2'), madeUp('x3'), madeUp('x4'), { text: 'gave up' });

    const paused = await fx.send(sessionId, 'names', 'Look a up').expect(200);

    expect(paused.body).toMatchObject({ status: 'PAUSED', hitlRequest: { requestType: 'CHECKPOINT_PAUSE' } });
    expect(fx.model.requestsFor(agent.model)).toHaveLength(3);
    const tool = (await fx.messages(sessionId)).filter((m) => m.role === 'tool');
    expect(tool.map((m) => m.content)).toEqual([
      expect.stringContaining('"functions.lookup_order" is not a tool name'),
      expect.stringContaining('"functions.lookup_order" is not a tool name'),
    ]);
  });

  it('gives every run of a session its own maxIterations rounds', async () => {
    const agent = await fx.agent([lookup.id], { maxIterations: 2 });
    const sessionId = await fx.session(agent.id);
    const round = (id: string) => ({ toolCalls: [{ id, name: 'lookup_order', arguments: `{"q":"${id}"}` }] });
    fx.model.script(agent.model, round('r1'), round('r2'), { text: 'first done' });
    expect((await fx.send(sessionId, 'm1', 'two lookups').expect(200)).body).toMatchObject({ status: 'COMPLETED' });
    // The first run used both rounds of the budget; the second message still gets two.
    fx.model.script(agent.model, round('r3'), round('r4'), { text: 'second done' });
    const second = await fx.send(sessionId, 'm2', 'two more').expect(200);
    expect(second.body).toMatchObject({ status: 'COMPLETED', answer: 'second done' });
  });
});
