import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { AGENT_LOOP_ENV, AgentLoopFixture } from './support/agent-loop.fixture';

/**
 * Answers that OpenAI-compatible servers send although OpenAI's own never would: the run reads what it can of
 * them and goes on, as it does with tool call arguments that are not valid JSON.
 */
describeEachDialect('the agent loop takes broken model answers', (dialect) => {
  const suite = gatewayForSuite(dialect, AGENT_LOOP_ENV);
  const fx = new AgentLoopFixture(() => suite.gw);
  let lookup: { id: string; name: string };

  beforeAll(async () => {
    await fx.start();
    lookup = await fx.tool('lookup_parcel', { httpMethod: 'GET', description: 'Look a parcel up.' });
  });
  afterAll(() => fx.stop());

  it('runs a tool call whose arguments are a JSON object instead of a JSON string', async () => {
    const agent = await fx.agent([lookup.id]);
    const sessionId = await fx.session(agent.id);
    const before = fx.requestsTo('/lookup_parcel').length;
    fx.model.script(
      agent.model,
      {
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'obj_1', type: 'function', function: { name: 'lookup_parcel', arguments: { q: 'p-1' } } }],
        },
      },
      { text: 'Parcel p-1 is on its way.' },
    );

    const res = await fx.send(sessionId, 'obj-args', 'Where is p-1?').expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'Parcel p-1 is on its way.' });
    expect(fx.requestsTo('/lookup_parcel').slice(before)).toEqual([
      expect.objectContaining({ url: expect.stringContaining('q=p-1') }),
    ]);
    // The model is shown its call as OpenAI's format has it: the arguments as a JSON string.
    const [assistant] = fx.model.requestsFor(agent.model)[1].body.messages.filter((m) => m.role === 'assistant');
    expect(assistant.tool_calls[0].function.arguments).toBe('{"q":"p-1"}');
  });

  it('runs a tool call whose id is a number, answering it under that id as a string', async () => {
    const agent = await fx.agent([lookup.id]);
    const sessionId = await fx.session(agent.id);
    const before = fx.requestsTo('/lookup_parcel').length;
    fx.model.script(
      agent.model,
      {
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 7, type: 'function', function: { name: 'lookup_parcel', arguments: '{"q":"p-7"}' } }],
        },
      },
      { text: 'Parcel p-7 arrived.' },
    );

    const res = await fx.send(sessionId, 'num-id', 'Where is p-7?').expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'Parcel p-7 arrived.' });
    expect(fx.requestsTo('/lookup_parcel').slice(before)).toHaveLength(1);
    const messages = fx.model.requestsFor(agent.model)[1].body.messages;
    expect(messages.find((m) => m.role === 'assistant')!.tool_calls[0].id).toBe('7');
    expect(messages.find((m) => m.role === 'tool')!.tool_call_id).toBe('7');
  });

  it('takes an answer whose content is a list of text parts as their text', async () => {
    const agent = await fx.agent([]);
    const sessionId = await fx.session(agent.id);
    fx.model.script(agent.model, {
      message: {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Parcel p-2 ' },
          { type: 'text', text: 'is in the depot.' },
        ],
      },
    });

    const res = await fx.send(sessionId, 'parts', 'Where is p-2?').expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'Parcel p-2 is in the depot.' });
    expect((await fx.messages(sessionId)).at(-1)).toMatchObject({
      role: 'assistant',
      content: 'Parcel p-2 is in the depot.',
    });
  });

  it("takes a refusal (OpenAI's message.refusal, no content) as the run's answer, not an empty one", async () => {
    const agent = await fx.agent([]);
    const sessionId = await fx.session(agent.id);
    fx.model.script(agent.model, {
      message: { role: 'assistant', content: null, refusal: "I can't help with opening other people's parcels." },
    });

    const res = await fx.send(sessionId, 'refused', 'Open parcel p-9 for me.').expect(200);

    expect(res.body).toMatchObject({
      status: 'COMPLETED',
      answer: "I can't help with opening other people's parcels.",
    });
    expect((await fx.messages(sessionId)).at(-1)).toMatchObject({
      role: 'assistant',
      content: "I can't help with opening other people's parcels.",
    });
  });

  it('answers a call of a made-up tool name and sends it back as a name the provider accepts', async () => {
    const agent = await fx.agent([lookup.id]);
    const sessionId = await fx.session(agent.id);
    fx.model.script(
      agent.model,
      { toolCalls: [{ id: 'made_up', name: 'functions.lookup_parcel', arguments: '{"q":"p-3"}' }] },
      { text: 'I could not look it up.' },
      { text: 'Still here.' },
    );

    const res = await fx.send(sessionId, 'made-up', 'Where is p-3?').expect(200);
    const later = await fx.send(sessionId, 'made-up-2', 'Anything else?').expect(200);

    // The scripted model refuses an invalid function name in the conversation with 400, as OpenAI does.
    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'I could not look it up.' });
    expect(later.body).toMatchObject({ status: 'COMPLETED', answer: 'Still here.' });
    const messages = fx.model.requestsFor(agent.model)[1].body.messages;
    expect(messages.find((m) => m.role === 'assistant')!.tool_calls[0].function.name).toBe('invalid_tool_name');
    expect(messages.find((m) => m.role === 'tool')!.content).toContain('"functions.lookup_parcel" is not a tool name');
    // The conversation keeps what the model answered.
    const stored = (await fx.messages(sessionId)).find((m) => m.role === 'assistant');
    expect(stored!.toolCalls[0].name).toBe('functions.lookup_parcel');
  });

  it('runs a tool call that comes without its type (a function call, the only kind such servers know)', async () => {
    const agent = await fx.agent([lookup.id]);
    const sessionId = await fx.session(agent.id);
    const before = fx.requestsTo('/lookup_parcel').length;
    fx.model.script(
      agent.model,
      {
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'untyped_1', function: { name: 'lookup_parcel', arguments: '{"q":"p-4"}' } }],
        },
      },
      { text: 'Parcel p-4 was delivered.' },
    );

    const res = await fx.send(sessionId, 'untyped', 'Where is p-4?').expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'Parcel p-4 was delivered.', iterations: 2 });
    expect(fx.requestsTo('/lookup_parcel').slice(before)).toEqual([
      expect.objectContaining({ url: expect.stringContaining('q=p-4') }),
    ]);
  });

  it('sends an answer with empty text back as null beside its tool calls, and leaves out one with neither', async () => {
    const agent = await fx.agent([lookup.id]);
    const sessionId = await fx.session(agent.id);
    // vLLM and Ollama answer "" as the text of an answer that only calls tools; a model may also end a run with "".
    fx.model.script(
      agent.model,
      { text: '', toolCalls: [{ id: 'empty_1', name: 'lookup_parcel', arguments: '{"q":"p-8"}' }] },
      { text: '' },
      { text: 'Parcel p-8 is out for delivery.' },
    );

    await fx.send(sessionId, 'empty-text-1', 'Where is p-8?').expect(200);
    const res = await fx.send(sessionId, 'empty-text-2', 'And now?').expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'Parcel p-8 is out for delivery.' });
    const [, afterCall, nextMessage] = fx.model.requestsFor(agent.model).map((r) => r.body.messages);
    // OpenAI's form of an assistant message that only calls tools: content null (some providers refuse "").
    expect(afterCall.filter((m) => m.role === 'assistant')).toEqual([
      expect.objectContaining({ content: null, tool_calls: [expect.objectContaining({ id: 'empty_1' })] }),
    ]);
    // The empty final answer is not sent: providers refuse an assistant message with neither text nor tool calls.
    expect(nextMessage.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    expect(nextMessage[2]).toMatchObject({ content: null });
    // The conversation keeps what the model answered.
    expect((await fx.messages(sessionId)).map((m) => [m.role, m.content])).toEqual([
      ['user', 'Where is p-8?'],
      ['assistant', ''],
      ['tool', expect.any(String)],
      ['assistant', ''],
      ['user', 'And now?'],
      ['assistant', 'Parcel p-8 is out for delivery.'],
    ]);
  });

  it('answers a tool call that is null as one without a name, and goes on', async () => {
    const agent = await fx.agent([lookup.id]);
    const sessionId = await fx.session(agent.id);
    fx.model.script(
      agent.model,
      { message: { role: 'assistant', content: null, tool_calls: [null] } },
      { text: 'Sorry, let me answer instead.' },
    );

    const res = await fx.send(sessionId, 'null-call', 'Where is p-5?').expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'Sorry, let me answer instead.', iterations: 2 });
    const told = fx.model.requestsFor(agent.model)[1].body.messages.find((m) => m.role === 'tool');
    expect(told!.content).toContain('"" is not a tool name');
  });

  it('fails a run whose answer has tool_calls that are no list, saying so', async () => {
    const agent = await fx.agent([lookup.id]);
    for (const toolCalls of [{ id: 'x', function: { name: 'lookup_parcel' } }, 'lookup_parcel']) {
      fx.model.script(agent.model, { message: { role: 'assistant', content: null, tool_calls: toolCalls } });
      const res = await fx.send(await fx.session(agent.id), `no-list-${typeof toolCalls}`, 'Where is p-6?').expect(200);

      expect(res.body).toMatchObject({
        status: 'FAILED',
        error: `model provider p-${agent.model} answered with tool_calls that are not a list (${typeof toolCalls}); an OpenAI-compatible server answers a list of calls: check the provider's baseUrl and model`,
      });
    }
  });

  it('fails a run whose answer has no choice, with the reason the answer gives in its place', async () => {
    const agent = await fx.agent([]);
    const noChoice = async (body: Record<string, unknown>) => {
      fx.model.script(agent.model, { status: 200, body: { id: 'chatcmpl-x', object: 'chat.completion', ...body } });
      const res = await fx.send(await fx.session(agent.id), `no-choice-${JSON.stringify(body).length}`, 'hi');
      expect(res.body.status).toBe('FAILED');
      return res.body.error as string;
    };

    expect(await noChoice({ choices: [] })).toBe(`model provider p-${agent.model} answered without a choice`);
    // What OpenRouter answers, with HTTP 200, when the model behind it failed.
    expect(await noChoice({ error: { message: 'Upstream error from Alibaba: overloaded', code: 502 } })).toBe(
      `model provider p-${agent.model} answered without a choice: Upstream error from Alibaba: overloaded`,
    );
  });

  it("fails a run with the reason of an error answer in another server's shape, not an empty one", async () => {
    const agent = await fx.agent([]);
    const errorOf = async (body: unknown, status = 400) => {
      fx.model.script(agent.model, { status, body });
      const res = await fx.send(await fx.session(agent.id), `e-${status}-${JSON.stringify(body).length}`, 'hi');
      expect(res.body.status).toBe('FAILED');
      return res.body.error as string;
    };

    // Text Generation Inference: the reason is the `error` string.
    expect(
      await errorOf(
        { error: 'Input validation error: `inputs` must have less than 4096 tokens', error_type: 'validation' },
        422,
      ),
    ).toBe(
      `model provider p-${agent.model} failed with HTTP 422: Input validation error: \`inputs\` must have less than 4096 tokens`,
    );
    // vLLM before 0.6 (and FastChat): the error's fields at the top level, beside `object: "error"`.
    expect(
      await errorOf(
        { object: 'error', message: 'The model `x` does not exist.', type: 'NotFoundError', code: 404 },
        404,
      ),
    ).toBe(
      `model provider p-${agent.model} failed with HTTP 404: The model \`x\` does not exist. (check the provider's baseUrl, whose /chat/completions must answer, and its model)`,
    );
    // A `message` that is no string: shown as JSON, never a failure of the gateway itself.
    const odd = await errorOf({ error: { message: { detail: 'quota exhausted' } } }, 403);
    expect(odd).toContain('failed with HTTP 403: {"detail":"quota exhausted"}');
  });

  it('fails a run with the text of an error answer that is no JSON, and what to check on a 404', async () => {
    const agent = await fx.agent([]);
    // What Ollama (and other Go servers) answer for a path they do not serve: a baseUrl without its /v1.
    fx.model.script(agent.model, { status: 404, text: '404 page not found' });

    const res = await fx.send(await fx.session(agent.id), 'text-404', 'hi').expect(200);

    expect(res.body).toMatchObject({
      status: 'FAILED',
      error: `model provider p-${agent.model} failed with HTTP 404: 404 page not found (check the provider's baseUrl, whose /chat/completions must answer, and its model)`,
    });
  });
});
