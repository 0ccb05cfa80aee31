import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { AGENT_LOOP_ENV, AgentLoopFixture } from './support/agent-loop.fixture';

/**
 * Why the model's answer ended (`finish_reason`): an answer the provider cut at its token limit (`length`), withheld
 * (`content_filter`) or ended for a reason of its own is shown as such, and a tool call the cut left incomplete
 * never runs.
 */
describeEachDialect('the agent loop shows why a model answer ended', (dialect) => {
  const suite = gatewayForSuite(dialect, AGENT_LOOP_ENV);
  const fx = new AgentLoopFixture(() => suite.gw);
  let lookup: { id: string; name: string };

  beforeAll(async () => {
    await fx.start();
    lookup = await fx.tool('lookup_box', {
      httpMethod: 'GET',
      description: 'Look a box up.',
      parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    });
  });
  afterAll(() => fx.stop());

  const runFinished = async (sessionId: string) =>
    (await fx.events(sessionId)).filter((e) => e.type === 'run.finished').map((e) => e.data);

  it('completes a run whose final answer the token limit cut with finishReason length, on the run and its event', async () => {
    const agent = await fx.agent([]);
    const sessionId = await fx.session(agent.id);
    fx.model.script(agent.model, { text: 'Box b-1 is in the wareh', finishReason: 'length' });

    const res = await fx.send(sessionId, 'cut', 'Where is b-1?').expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'Box b-1 is in the wareh', finishReason: 'length' });
    expect(await fx.run(sessionId, res.body.runId)).toMatchObject({ status: 'COMPLETED', finishReason: 'length' });
    expect(await runFinished(sessionId)).toEqual([
      { runId: res.body.runId, status: 'COMPLETED', finishReason: 'length' },
    ]);
  });

  it('shows no finishReason for an answer that ended normally', async () => {
    const agent = await fx.agent([]);
    const sessionId = await fx.session(agent.id);
    fx.model.script(agent.model, { text: 'Box b-2 arrived.' });

    const res = await fx.send(sessionId, 'whole', 'Where is b-2?').expect(200);

    expect(res.body).toEqual({ runId: res.body.runId, status: 'COMPLETED', answer: 'Box b-2 arrived.', iterations: 1 });
    expect(await runFinished(sessionId)).toEqual([{ runId: res.body.runId, status: 'COMPLETED' }]);
  });

  it('never runs a tool call whose arguments the token limit cut, tells the model why, and runs the whole ones', async () => {
    const agent = await fx.agent([lookup.id]);
    const sessionId = await fx.session(agent.id);
    const before = fx.requestsTo('/lookup_box').length;
    fx.model.script(
      agent.model,
      {
        toolCalls: [
          { id: 'whole_1', name: 'lookup_box', arguments: '{"q":"b-3"}' },
          { id: 'cut_1', name: 'lookup_box', arguments: '{"q":"b-' },
        ],
        finishReason: 'length',
      },
      { text: 'Box b-3 is here; I will ask for b-4 again.' },
    );

    const res = await fx.send(sessionId, 'cut-call', 'Where are b-3 and b-4?').expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', iterations: 2 });
    expect(res.body).not.toHaveProperty('finishReason');
    expect(
      fx
        .requestsTo('/lookup_box')
        .slice(before)
        .map((r) => new URL(r.url, 'http://x').searchParams.get('q')),
    ).toEqual(['b-3']);
    const answers = fx.model.requestsFor(agent.model)[1].body.messages.filter((m) => m.role === 'tool');
    expect(answers.map((m) => m.tool_call_id)).toEqual(['whole_1', 'cut_1']);
    expect(answers[1].content).toMatch(/^执行失败: .*token limit/);
    // The conversation shows the call was cut; the journal never saw it.
    const assistant = (await fx.messages(sessionId)).find((m) => m.role === 'assistant')!;
    expect(assistant.toolCalls.map((c: { truncated?: boolean }) => c.truncated ?? false)).toEqual([false, true]);
    const journal = await suite.gw.http
      .get(`/api/v1/admin/sessions/${sessionId}/journal`)
      .set(suite.gw.admin)
      .expect(200);
    expect((journal.body.items ?? journal.body).map((r: { toolCallId: string }) => r.toolCallId)).toEqual(['whole_1']);
  });

  it('shows an answer that ended to call tools but holds no tool call, as a server whose tool parser failed sends', async () => {
    const agent = await fx.agent([lookup.id]);
    const raw = '<tool_call>{"name": "lookup_box", "arguments": {"q": "b-6"}}</tool_call>';
    fx.model.script(agent.model, { message: { role: 'assistant', content: raw }, finishReason: 'tool_calls' });

    const res = await fx.send(await fx.session(agent.id), 'no-calls', 'Where is b-6?').expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: raw, finishReason: 'tool_calls' });
  });

  it("shows an answer the provider's content filter ended, and a reason it does not document, as they came", async () => {
    const agent = await fx.agent([]);
    fx.model.script(
      agent.model,
      { text: '', finishReason: 'content_filter' },
      { text: 'Box b-5 is late.', finishReason: 'insufficient_system_resource' },
    );

    const filtered = await fx.send(await fx.session(agent.id), 'filtered', 'Where is b-5?').expect(200);
    const odd = await fx.send(await fx.session(agent.id), 'odd', 'Where is b-5?').expect(200);

    expect(filtered.body).toMatchObject({ status: 'COMPLETED', answer: '', finishReason: 'content_filter' });
    expect(odd.body).toMatchObject({
      status: 'COMPLETED',
      answer: 'Box b-5 is late.',
      finishReason: 'insufficient_system_resource',
    });
  });
});
