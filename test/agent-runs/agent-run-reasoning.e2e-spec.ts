import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { AGENT_LOOP_ENV, AgentLoopFixture } from './support/agent-loop.fixture';

/**
 * A model in a thinking mode answers its reasoning beside its tool calls (`reasoning_content`), and DeepSeek's (on by
 * default) refuses every later request of the conversation that replays those calls without it; Gemini answers a
 * thought signature with each call (`extra_content`) and refuses a replay without it alike.
 */
describeEachDialect('the agent loop with a model that answers its reasoning', (dialect) => {
  const suite = gatewayForSuite(dialect, AGENT_LOOP_ENV);
  const fx = new AgentLoopFixture(() => suite.gw);

  beforeAll(() => fx.start());
  afterAll(() => fx.stop());

  it("sends the reasoning of an answer that called tools back with it, in this run's rounds and later runs'", async () => {
    const lookup = await fx.tool('lookup_order', { httpMethod: 'GET' });
    const agent = await fx.agent([lookup.id]);
    const sessionId = await fx.session(agent.id);
    fx.model.script(
      agent.model,
      {
        reasoning: 'The user asks about o-1: look it up.',
        toolCalls: [{ id: 'c1', name: 'lookup_order', arguments: '{"q":"o-1"}' }],
      },
      { reasoning: 'It was found.', text: 'o-1 ships today.' },
      { text: 'Yes, today.' },
    );

    const first = await fx.send(sessionId, 'm1', 'When does o-1 ship?').expect(200);
    expect(first.body).toMatchObject({ status: 'COMPLETED', answer: 'o-1 ships today.' });
    const second = await fx.send(sessionId, 'm2', 'Today?').expect(200);
    expect(second.body).toMatchObject({ status: 'COMPLETED', answer: 'Yes, today.' });

    const [, round2, nextRun] = fx.model.requestsFor(agent.model);
    for (const request of [round2, nextRun]) {
      const calls = request.body.messages.find((m) => m.role === 'assistant' && m.tool_calls);
      expect(calls).toMatchObject({ reasoning_content: 'The user asks about o-1: look it up.' });
    }
  });

  it("sends each tool call's thought signature (Gemini's extra_content) back with it, and shows it to no client", async () => {
    const lookup = await fx.tool('find_order', { httpMethod: 'GET' });
    const agent = await fx.agent([lookup.id]);
    const sessionId = await fx.session(agent.id);
    const signed = (q: string) => ({ google: { thought_signature: `sig-${q}` } });
    fx.model.script(
      agent.model,
      {
        toolCalls: [
          { id: 'g1', name: 'find_order', arguments: '{"q":"o-1"}', extraContent: signed('o-1') },
          { id: 'g2', name: 'find_order', arguments: '{"q":"o-2"}' },
        ],
      },
      { text: 'Both found.' },
    );

    const res = await fx.send(sessionId, 'm1', 'Find o-1 and o-2').expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'Both found.' });
    const sent = fx.model.requestsFor(agent.model)[1].body.messages.find((m) => m.tool_calls);
    expect(sent!.tool_calls.map((c: { extra_content?: unknown }) => c.extra_content)).toEqual([
      signed('o-1'),
      undefined,
    ]);
    const [shown] = (await fx.messages(sessionId)).filter((m) => m.toolCalls);
    expect(shown.toolCalls.map((c: object) => Object.keys(c).sort())).toEqual([
      ['arguments', 'id', 'key', 'name'],
      ['arguments', 'id', 'key', 'name'],
    ]);
  });
});
