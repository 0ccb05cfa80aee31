import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { waitFor } from '@test/support/wait-for';
import { heldAnswers } from '@test/support/scripted-model.server';
import { AgentRunsService } from '@app/modules/agent-runs/agent-runs.service';
import { MAX_TOOL_CALLS_PER_ANSWER } from '@app/modules/agent-runs/agent-run.loop';
import { AGENT_LOOP_ENV, AgentLoopFixture, MODEL_KEY } from './support/agent-loop.fixture';

describeEachDialect('the gateway runs the agent loop (POST /sessions/{id}/messages)', (dialect) => {
  const suite = gatewayForSuite(dialect, AGENT_LOOP_ENV);
  const fx = new AgentLoopFixture(() => suite.gw);
  let lookup: { id: string; name: string };

  beforeAll(async () => {
    await fx.start();
    lookup = await fx.tool('lookup_order', {
      httpMethod: 'GET',
      description: 'Look an order up.',
      parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    });
  });
  afterAll(() => fx.stop());

  it('asks the model with the system prompt and the tools in OpenAI format, acts, and feeds the result back', async () => {
    const agent = await fx.agent([lookup.id]);
    const sessionId = await fx.session(agent.id);
    fx.model.script(
      agent.model,
      { toolCalls: [{ id: 'call_1', name: 'lookup_order', arguments: '{"q":"o-1"}' }] },
      { text: 'Order o-1 has shipped.' },
    );

    const res = await fx.send(sessionId, 'msg-1', 'Where is my order o-1?').expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'Order o-1 has shipped.', iterations: 2 });
    const [first, second] = fx.model.requestsFor(agent.model);
    expect(first.headers.authorization).toBe(`Bearer ${MODEL_KEY}`);
    expect(first.body.messages.slice(0, 2)).toEqual([
      { role: 'system', content: 'You are the order assistant.' },
      { role: 'user', content: 'Where is my order o-1?' },
    ]);
    expect(first.body.tools).toContainEqual({
      type: 'function',
      function: expect.objectContaining({
        name: 'lookup_order',
        description: 'Look an order up.',
        parameters: expect.objectContaining({ type: 'object', required: ['q'] }),
      }),
    });
    expect(fx.requestsTo('/lookup_order')).toHaveLength(1);
    expect(fx.requestsTo('/lookup_order')[0].url).toContain('q=o-1');
    const toolMessage = second.body.messages.find((m) => m.role === 'tool');
    expect(second.body.messages[2]).toMatchObject({
      role: 'assistant',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup_order', arguments: '{"q":"o-1"}' } }],
    });
    expect(toolMessage).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
    expect(toolMessage!.content).toContain('"ok":true');

    expect((await fx.messages(sessionId)).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    const events = await fx.events(sessionId);
    expect(events.filter((e) => e.type === 'message').map((e) => e.data.role)).toEqual([
      'user',
      'assistant',
      'assistant',
    ]);
    expect(events.filter((e) => e.type === 'run.finished').map((e) => e.data)).toEqual([
      { runId: res.body.runId, status: 'COMPLETED' },
    ]);
    expect((await fx.sessionView(sessionId)).status).toBe('ACTIVE');
    const journal = await suite.gw.http
      .get(`/api/v1/admin/sessions/${sessionId}/journal`)
      .set(suite.gw.admin)
      .expect(200);
    expect(journal.body.items ?? journal.body).toEqual(
      expect.arrayContaining([expect.objectContaining({ toolCallId: 'call_1', state: 'COMPLETED' })]),
    );
  });

  it('reports runs by status on /metrics', async () => {
    const text = (await suite.gw.http.get('/metrics').expect(200)).text;
    // Stopped runs are counted as they stop; the gauges read only live runs (none is live between these tests).
    const completed = /^gateway_agent_runs_stopped_total\{status="COMPLETED"\} (\d+)$/m.exec(text);
    expect(Number(completed?.[1])).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^gateway_agent_runs\{status="RUNNING"\} 0$/m);
    expect(text).not.toMatch(/^gateway_agent_runs\{status="COMPLETED"\}/m);
    // Tasks by CHECK_TASK_STATUS's statuses: a paused child's task is INTERRUPTED.
    expect(text).toMatch(/^gateway_agent_tasks\{status="INTERRUPTED"\} 0$/m);
    expect(text).not.toMatch(/^gateway_agent_tasks\{status="PAUSED"\}/m);
  });

  it('answers the same clientMessageId with the same run, and nothing runs again', async () => {
    const agent = await fx.agent([lookup.id]);
    const sessionId = await fx.session(agent.id);
    fx.model.script(agent.model, { text: 'Hello.' });
    const first = await fx.send(sessionId, 'same-id', 'Hi').expect(200);
    const again = await fx.send(sessionId, 'same-id', 'Hi').expect(200);
    const noWait = await fx.send(sessionId, 'same-id', 'Hi', false).expect(202);

    expect(again.body).toEqual(first.body);
    expect(noWait.body.runId).toBe(first.body.runId);
    expect(fx.model.requestsFor(agent.model)).toHaveLength(1);
    expect(await fx.messages(sessionId)).toHaveLength(2);
  });

  it('stops waiting once a wait: true client has gone away, and the run goes on', async () => {
    const agent = await fx.agent([]);
    const sessionId = await fx.session(agent.id);
    const held = heldAnswers();
    fx.model.script(agent.model, { text: 'Answered after the client left.', until: held.until });
    // The request's own work, seen from inside: it ends when it no longer waits.
    const service = suite.gw.app.get(AgentRunsService);
    const original = service.post.bind(service);
    let ended = false;
    const post = jest.spyOn(service, 'post').mockImplementation((...args) => {
      const answer = original(...args);
      answer.finally(() => (ended = true)).catch(() => undefined);
      return answer;
    });
    try {
      const client = fx.send(sessionId, 'gone-1', 'Hi');
      const sent = client.then(
        () => 'answered',
        () => 'cut',
      );
      await waitFor(() => fx.model.requestsFor(agent.model).length === 1, { description: 'the model to be asked' });
      client.abort();
      expect(await sent).toBe('cut');
      await waitFor(() => ended, { description: 'the request to stop waiting for its run' });
    } finally {
      post.mockRestore();
    }

    held.release();
    const runId = (await fx.events(sessionId)).find((e) => e.type === 'message')!.data.runId;
    expect(await fx.untilRun(sessionId, runId, 'COMPLETED')).toMatchObject({
      answer: 'Answered after the client left.',
    });
  });

  it('turns invalid JSON arguments into a FAILED tool result the model reads and corrects', async () => {
    const agent = await fx.agent([lookup.id]);
    const sessionId = await fx.session(agent.id);
    const before = fx.requestsTo('/lookup_order').length;
    fx.model.script(
      agent.model,
      { toolCalls: [{ id: 'bad_1', name: 'lookup_order', arguments: '{"q": ' }] },
      { toolCalls: [{ id: 'good_1', name: 'lookup_order', arguments: '{"q":"o-2"}' }] },
      { text: 'Fixed it.' },
    );

    const res = await fx.send(sessionId, 'm', 'Look o-2 up').expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', iterations: 3 });
    const second = fx.model.requestsFor(agent.model)[1];
    const failed = second.body.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'bad_1');
    expect(failed!.content).toMatch(/^执行失败: .*not valid JSON/);
    expect(fx.requestsTo('/lookup_order')).toHaveLength(before + 1);
  });

  it('runs at most 64 tool calls of one answer (as one act takes); the others get a result saying so', async () => {
    const agent = await fx.agent([lookup.id]);
    const sessionId = await fx.session(agent.id);
    const many = Array.from({ length: 70 }, (_, i) => ({
      id: `many_${i}`,
      name: 'lookup_order',
      arguments: JSON.stringify({ q: `fan-${i}` }),
    }));
    fx.model.script(agent.model, { toolCalls: many }, { text: 'done' });

    const res = await fx.send(sessionId, 'msg-many', 'Look them all up.').expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'done' });
    const ran = fx.requestsTo('/lookup_order').filter((r) => r.url.includes('fan-'));
    expect(ran.map((r) => /q=(fan-\d+)/.exec(r.url)![1]).sort()).toEqual(
      many
        .slice(0, 64)
        .map((_, i) => `fan-${i}`)
        .sort(),
    );
    const second = fx.model.requestsFor(agent.model)[1];
    const results = second.body.messages.filter((m) => m.role === 'tool');
    expect(results).toHaveLength(70);
    for (const m of results.slice(64)) expect(m.content).toContain('at most 64 tool calls');
    expect(results[0].content).toContain('"ok":true');
  });

  // An answer of MODEL_MAX_ANSWER_BYTES holds about 100,000 tiny calls. Each was stored with an answer of its own (80,000
  // message rows in one round), which held the event loop, every tenant's requests with it, for 5-6 s on SQLite: a
  // tenant's own provider (or one compromised) froze the gateway once per round. Past 1,000 calls are dropped (the
  // cap is what this checks; the stall itself is not timed here).
  it('keeps only the first 1,000 calls of an answer, and answers each of them', async () => {
    const agent = await fx.agent([lookup.id]);
    const sessionId = await fx.session(agent.id);
    const many = Array.from({ length: MAX_TOOL_CALLS_PER_ANSWER + 500 }, (_, i) => ({
      id: `f${i}`,
      name: 'lookup_order',
      arguments: '{"q":"a"}',
    }));
    fx.model.script(agent.model, { toolCalls: many }, { text: 'flooded' });
    const before = fx.requestsTo('/lookup_order').length;

    const res = await fx.send(sessionId, 'msg-flood', 'Look them all up.').expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'flooded' });
    expect(fx.requestsTo('/lookup_order')).toHaveLength(before + 64);
    const second = fx.model.requestsFor(agent.model)[1].body.messages;
    const assistant = second.find((m) => m.role === 'assistant');
    expect(assistant!.tool_calls).toHaveLength(MAX_TOOL_CALLS_PER_ANSWER);
    const results = second.filter((m) => m.role === 'tool');
    expect(results.map((m) => m.tool_call_id)).toEqual(many.slice(0, MAX_TOOL_CALLS_PER_ANSWER).map((c) => c.id));
    expect(results.filter((m) => m.content.includes('at most 64 tool calls'))).toHaveLength(
      MAX_TOOL_CALLS_PER_ANSWER - 64,
    );
  }, 60_000);

  // On MySQL an event's data holds 64 KB: a longer one was stored cut, and every read of the session's events failed.
  it("keeps a message event small whatever the message's size, so the session's events stay readable", async () => {
    const agent = await fx.agent([lookup.id]);
    const sessionId = await fx.session(agent.id);
    const many = Array.from({ length: 2_000 }, (_, i) => ({ id: `wide_${i}`, name: 'lookup_order', arguments: '{}' }));
    fx.model.script(agent.model, { toolCalls: many, text: 'z'.repeat(100_000) }, { text: 'y'.repeat(100_000) });

    const res = await fx.send(sessionId, 'msg-wide', 'x'.repeat(70_000)).expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'y'.repeat(100_000) });
    const events = (await fx.events(sessionId)).filter((e) => e.type === 'message');
    expect(events.map((e) => [e.data.role, e.data.contentChars, String(e.data.content).length])).toEqual([
      ['user', 70_000, 2_000],
      ['assistant', 100_000, 2_000],
      ['assistant', 100_000, 2_000],
    ]);
    // The answer's first MAX_TOOL_CALLS_PER_ANSWER calls are kept (and counted); the event names 64 of them.
    expect(events[1].data).toMatchObject({ toolCallCount: MAX_TOOL_CALLS_PER_ANSWER, toolCalls: expect.any(Array) });
    expect(events[1].data.toolCalls).toHaveLength(64);
    expect(events[1].data.toolCalls[0]).toEqual({ id: 'wide_0', name: 'lookup_order' });
    // The conversation keeps every message whole.
    expect((await fx.messages(sessionId)).map((m) => m.content?.length ?? 0).slice(0, 2)).toEqual([70_000, 100_000]);
  }, 60_000);

  it('qualifies a tool call id the model repeats within the session, so the call runs again', async () => {
    const agent = await fx.agent([lookup.id]);
    const sessionId = await fx.session(agent.id);
    const before = fx.requestsTo('/lookup_order').length;
    const call = { toolCalls: [{ id: 'call_0', name: 'lookup_order', arguments: '{"q":"o-3"}' }] };
    fx.model.script(agent.model, call, { text: 'one' }, call, { text: 'two' });

    await fx.send(sessionId, 'a', 'first').expect(200);
    const second = await fx.send(sessionId, 'b', 'second').expect(200);

    expect(second.body).toMatchObject({ status: 'COMPLETED', answer: 'two' });
    expect(fx.requestsTo('/lookup_order')).toHaveLength(before + 2);
    const journal = await suite.gw.http
      .get(`/api/v1/admin/sessions/${sessionId}/journal`)
      .set(suite.gw.admin)
      .expect(200);
    const keys = (journal.body.items ?? journal.body).map((r: { toolCallId: string }) => r.toolCallId).sort();
    expect(keys).toEqual(['call_0', `call_0@${second.body.runId}:1`]);
    const last = fx.model.requestsFor(agent.model)[3];
    expect(last.body.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual([
      'call_0',
      'call_0',
    ]);
  });

  it("passes a map whose one key is arguments_json to the tool as it is: only Gemini's spec wraps a map there", async () => {
    const labels = await fx.tool('set_labels', {
      description: 'Set labels by name.',
      parameters: { type: 'object', additionalProperties: { type: 'string' } },
    });
    const agent = await fx.agent([labels.id]);
    const sessionId = await fx.session(agent.id);
    const before = fx.requestsTo('/set_labels').length;
    // The model was given the OpenAI spec (the map as it is), so this is a label named arguments_json.
    fx.model.script(
      agent.model,
      { toolCalls: [{ id: 'map_1', name: 'set_labels', arguments: '{"arguments_json":"{\\"tier\\":\\"gold\\"}"}' }] },
      { text: 'Labelled.' },
    );

    const res = await fx.send(sessionId, 'map-key', 'Label it.').expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'Labelled.' });
    const [sent] = fx.requestsTo('/set_labels').slice(before);
    expect(JSON.parse(sent.body)).toEqual({ arguments_json: '{"tier":"gold"}' });
  });

  it('gives a call that reuses an id of the same answer an id of its own, and runs an exact repeat once', async () => {
    const agent = await fx.agent([lookup.id]);
    const sessionId = await fx.session(agent.id);
    const before = fx.requestsTo('/lookup_order').length;
    fx.model.script(
      agent.model,
      {
        toolCalls: [
          { id: 'twin', name: 'lookup_order', arguments: '{"q":"o-11"}' },
          { id: 'twin', name: 'lookup_order', arguments: '{"q":"o-12"}' },
          { id: 'twin', name: 'lookup_order', arguments: '{"q":"o-11"}' },
        ],
      },
      { text: 'Both found.' },
    );

    const res = await fx.send(sessionId, 'twins', 'Where are o-11 and o-12?').expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'Both found.' });
    // Each call ran once: the third was the first again (same id, name and arguments).
    expect(
      fx
        .requestsTo('/lookup_order')
        .slice(before)
        .map((r) => new URL(r.url, 'http://x').searchParams.get('q')),
    ).toEqual(['o-11', 'o-12']);
    // The provider is sent a conversation where every tool call has its own id and one answer under that id.
    const messages = fx.model.requestsFor(agent.model)[1].body.messages;
    const ids = messages.find((m) => m.role === 'assistant')!.tool_calls.map((c: { id: string }) => c.id);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe('twin');
    expect(new Set(ids).size).toBe(2);
    const answers = messages.filter((m) => m.role === 'tool');
    expect(answers.map((m) => m.tool_call_id)).toEqual(ids);
    expect(answers[0].content).toContain('o-11');
    expect(answers[1].content).toContain('o-12');
    // The journal holds each call once: the repeat under the model's id qualified, as an id repeated across turns.
    const journal = await suite.gw.http
      .get(`/api/v1/admin/sessions/${sessionId}/journal`)
      .set(suite.gw.admin)
      .expect(200);
    expect((journal.body.items ?? journal.body).map((r: { toolCallId: string }) => r.toolCallId).sort()).toEqual(
      ['twin', `twin@${res.body.runId}:1`].sort(),
    );
  });

  it("qualifies a model's tool call id the session's runtime already used through act: the model's call runs", async () => {
    const agent = await fx.agent([lookup.id]);
    const sessionId = await fx.session(agent.id);
    const before = fx.requestsTo('/lookup_order').length;
    await suite.gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(fx.runtime)
      .send({
        iteration: 1,
        toolCalls: [
          { id: 'call_0', name: 'lookup_order', arguments: { q: 'o-7' } },
          { id: 'call_1', name: 'lookup_order', arguments: { q: 'o-6' } },
        ],
      })
      .expect(200);
    // The model's call_0 asks for another order (it was refused as a conflict), its call_1 for the same one as the
    // runtime's (it was answered with the runtime's stored result: the lookup never ran for the model).
    fx.model.script(
      agent.model,
      {
        toolCalls: [
          { id: 'call_0', name: 'lookup_order', arguments: '{"q":"o-8"}' },
          { id: 'call_1', name: 'lookup_order', arguments: '{"q":"o-6"}' },
        ],
      },
      { text: 'one' },
    );
    const first = await fx.send(sessionId, 'after-act-1', 'Where are o-8 and o-6?').expect(200);
    expect(first.body).toMatchObject({ status: 'COMPLETED', answer: 'one' });
    expect(
      fx
        .requestsTo('/lookup_order')
        .slice(before)
        .map((r) => r.url),
    ).toEqual([
      expect.stringContaining('q=o-7'),
      expect.stringContaining('q=o-6'),
      expect.stringContaining('q=o-8'),
      expect.stringContaining('q=o-6'),
    ]);
  });

  it('takes a tool call id longer than the conversation keeps (200 characters): the call runs once, the run ends', async () => {
    const agent = await fx.agent([lookup.id]);
    const sessionId = await fx.session(agent.id);
    const before = fx.requestsTo('/lookup_order').length;
    const id = `call_${'x'.repeat(200)}`;
    fx.model.script(
      agent.model,
      { toolCalls: [{ id, name: 'lookup_order', arguments: '{"q":"o-9"}' }] },
      { text: 'Found it.' },
    );

    const res = await fx.send(sessionId, 'long-id', 'Where is o-9?').expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'Found it.' });
    expect(fx.requestsTo('/lookup_order')).toHaveLength(before + 1);
    const second = fx.model.requestsFor(agent.model)[1];
    const [assistant] = second.body.messages.filter((m) => m.role === 'assistant');
    const [tool] = second.body.messages.filter((m) => m.role === 'tool');
    expect(tool.tool_call_id).toBe(assistant.tool_calls[0].id);
    expect(tool.tool_call_id.length).toBeLessThanOrEqual(128);
  });

  it('retries a 429 or 5xx with back-off, then fails the run with the reason', async () => {
    const agent = await fx.agent([]);
    const sessionId = await fx.session(agent.id);
    fx.model.script(agent.model, { status: 503 }, { text: 'after a retry' });
    const ok = await fx.send(sessionId, 'r1', 'hi').expect(200);
    expect(ok.body).toMatchObject({ status: 'COMPLETED', answer: 'after a retry' });

    fx.model.script(
      agent.model,
      { status: 429, retryAfter: '0' },
      { status: 429, retryAfter: '0' },
      { status: 429, retryAfter: '0', message: 'slow down' },
    );
    const failed = await fx.send(sessionId, 'r2', 'again').expect(200);

    expect(failed.body.status).toBe('FAILED');
    expect(failed.body.error).toMatch(/HTTP 429 after 3 attempts: slow down/);
    expect(failed.body.error).not.toContain(MODEL_KEY);
    expect(fx.model.requestsFor(agent.model)).toHaveLength(5);
    expect((await fx.sessionView(sessionId)).status).toBe('ACTIVE');
    expect(await fx.run(sessionId, failed.body.runId)).toMatchObject({ status: 'FAILED', error: failed.body.error });
  });

  it('fails the run at once when the provider asks to be retried later than MODEL_RETRY_MAX_AFTER_MS', async () => {
    const agent = await fx.agent([]);
    const sessionId = await fx.session(agent.id);
    fx.model.script(
      agent.model,
      { status: 429, retryAfter: '3600', message: 'daily quota used up' },
      { text: 'asked again within the hour' },
    );

    const started = await fx.send(sessionId, 'ra-1', 'hi', false).expect(202);
    const failed = await fx.untilRun(sessionId, started.body.runId, 'FAILED');

    expect(failed.error).toContain('failed with HTTP 429: daily quota used up');
    expect(failed.error).toContain('asked to be retried after 3600 s, longer than MODEL_RETRY_MAX_AFTER_MS (60000 ms)');
    expect(fx.model.requestsFor(agent.model)).toHaveLength(1);
    expect(fx.model.pending(agent.model)).toBe(1);
    expect((await fx.sessionView(sessionId)).status).toBe('ACTIVE');
  });

  it('ends the run at once when its session is closed while the client waits out a Retry-After, asking nothing more', async () => {
    const agent = await fx.agent([]);
    const sessionId = await fx.session(agent.id);
    // 40 s is within MODEL_RETRY_MAX_AFTER_MS (60 s): the client sleeps it out, in a wait no signal cuts.
    fx.model.script(agent.model, { status: 429, retryAfter: '40', message: 'busy' }, { text: 'never asked' });

    const started = await fx.send(sessionId, 'ra-close', 'hi', false).expect(202);
    await waitFor(() => fx.model.requestsFor(agent.model).length === 1 || undefined);
    await suite.gw.http.delete(`/api/v1/sessions/${sessionId}`).set(fx.runtime).expect(200);
    const failed = await fx.untilRun(sessionId, started.body.runId, 'FAILED');

    expect(failed.error).toBe(`session ${sessionId} was closed`);
    expect(fx.model.requestsFor(agent.model)).toHaveLength(1);
    expect(fx.model.pending(agent.model)).toBe(1);
  }, 20_000);

  it("sends maxTokens as max_completion_tokens to a model that refuses max_tokens (OpenAI's reasoning models)", async () => {
    const agent = await fx.agent([]);
    await suite.gw.http
      .patch(`/api/v1/admin/model-providers/${agent.providerId}`)
      .set(suite.gw.admin)
      .send({ options: { maxTokens: 512 } })
      .expect(200);
    const sessionId = await fx.session(agent.id);
    // OpenAI's answer to max_tokens for o1, o3, gpt-5 and their kin.
    const refusal = {
      message:
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      type: 'invalid_request_error',
      param: 'max_tokens',
      code: 'unsupported_parameter',
    };
    fx.model.script(agent.model, { status: 400, body: { error: refusal } }, { text: 'one' }, { text: 'two' });

    const first = await fx.send(sessionId, 'mct-1', 'hi').expect(200);
    const second = await fx.send(sessionId, 'mct-2', 'again').expect(200);

    expect(first.body).toMatchObject({ status: 'COMPLETED', answer: 'one' });
    expect(second.body).toMatchObject({ status: 'COMPLETED', answer: 'two' });
    // Asked once more at once, then the provider is asked that way from the start.
    const sent = fx.model.requestsFor(agent.model).map((r) => [r.body.max_tokens, r.body.max_completion_tokens]);
    expect(sent).toEqual([
      [512, undefined],
      [undefined, 512],
      [undefined, 512],
    ]);
  });

  it("gives up on a model request past the provider's timeoutMs, retries it, then fails the run saying so", async () => {
    const agent = await fx.agent([]);
    await suite.gw.http
      .patch(`/api/v1/admin/model-providers/${agent.providerId}`)
      .set(suite.gw.admin)
      .send({ options: { timeoutMs: 1000, maxRetries: 1 } })
      .expect(200);
    const sessionId = await fx.session(agent.id);
    fx.model.script(agent.model, { hang: true }, { text: 'answered the second time' });
    const retried = await fx.send(sessionId, 't1', 'hi').expect(200);
    expect(retried.body).toMatchObject({ status: 'COMPLETED', answer: 'answered the second time' });
    expect(fx.model.requestsFor(agent.model)).toHaveLength(2);

    fx.model.script(agent.model, { hang: true }, { hang: true });
    const failed = await fx.send(sessionId, 't2', 'again').expect(200);
    expect(failed.body.status).toBe('FAILED');
    expect(failed.body.error).toMatch(/did not answer in time after 2 attempts/);
    expect(fx.model.requestsFor(agent.model)).toHaveLength(4);
    expect((await fx.sessionView(sessionId)).status).toBe('ACTIVE');
  }, 30_000);

  it("never lets the model key into a run's error, even when the provider echoes it", async () => {
    const agent = await fx.agent([]);
    const sessionId = await fx.session(agent.id);
    fx.model.script(agent.model, { status: 401, message: `Incorrect API key provided: ${MODEL_KEY}` });
    const res = await fx.send(sessionId, 'k', 'hi').expect(200);
    expect(res.body.status).toBe('FAILED');
    expect(res.body.error).toContain('HTTP 401: Incorrect API key provided: [redacted]');
    expect(JSON.stringify(await fx.events(sessionId))).not.toContain(MODEL_KEY);

    // Echoed where the message is cut (300 characters): no part of it stays either.
    const cut = await fx.session(agent.id);
    fx.model.script(agent.model, { status: 401, message: `${'x'.repeat(290)} key: ${MODEL_KEY}` });
    const straddled = await fx.send(cut, 'k2', 'hi').expect(200);
    expect(straddled.body.error).not.toContain(MODEL_KEY.slice(0, 4));

    // So when the echo comes as the reason of an answer without a choice (HTTP 200 {error}, as OpenRouter answers).
    const noChoice = await fx.session(agent.id);
    fx.model.script(agent.model, {
      status: 200,
      body: { id: 'chatcmpl-x', object: 'chat.completion', error: { message: `${'x'.repeat(290)} key: ${MODEL_KEY}` } },
    });
    const withoutChoice = await fx.send(noChoice, 'k3', 'hi').expect(200);
    expect(withoutChoice.body.error).toContain('answered without a choice');
    expect(withoutChoice.body.error).not.toContain(MODEL_KEY.slice(0, 4));
  });

  it("sends a tenant's provider nothing of the gateway's environment (OPENAI_ORG_ID, OPENAI_PROJECT_ID)", async () => {
    const saved = { org: process.env.OPENAI_ORG_ID, project: process.env.OPENAI_PROJECT_ID };
    process.env.OPENAI_ORG_ID = 'org-of-the-gateway-operator';
    process.env.OPENAI_PROJECT_ID = 'proj_of_the_gateway_operator';
    try {
      const agent = await fx.agent([]);
      fx.model.script(agent.model, { text: 'Hello.' });

      await fx.send(await fx.session(agent.id), 'env', 'hi').expect(200);

      const [asked] = fx.model.requestsFor(agent.model);
      expect(asked.headers.authorization).toBe(`Bearer ${MODEL_KEY}`);
      expect(asked.headers).not.toHaveProperty('openai-organization');
      expect(asked.headers).not.toHaveProperty('openai-project');
    } finally {
      for (const [name, value] of [
        ['OPENAI_ORG_ID', saved.org],
        ['OPENAI_PROJECT_ID', saved.project],
      ] as const)
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    }
  });

  it("tells a tenant's provider nothing of the gateway's host (operating system, architecture, Node.js version)", async () => {
    const agent = await fx.agent([]);
    fx.model.script(agent.model, { text: 'Hello.' });

    await fx.send(await fx.session(agent.id), 'host', 'hi').expect(200);

    const [asked] = fx.model.requestsFor(agent.model);
    for (const header of ['x-stainless-os', 'x-stainless-arch', 'x-stainless-runtime', 'x-stainless-runtime-version'])
      expect(asked.headers).not.toHaveProperty(header);
  });

  describe('a short model key', () => {
    const withKey = async (name: string, value: string) => {
      const agent = await fx.agent([]);
      await suite.gw.http
        .put(`/api/v1/admin/tenants/${fx.tenantId}/secrets/${name}`)
        .set(suite.gw.admin)
        .send({ value })
        .expect(201);
      await suite.gw.http
        .patch(`/api/v1/admin/model-providers/${agent.providerId}`)
        .set(suite.gw.admin)
        .send({ apiKey: `\${secret:${name}}` })
        .expect(200);
      return agent;
    };

    it("of 3 to 7 characters never reaches a run's error either", async () => {
      const agent = await withKey('SHORT_MODEL_KEY', 'k9Zq4');
      const sessionId = await fx.session(agent.id);
      fx.model.script(agent.model, { status: 401, message: 'Incorrect API key provided: k9Zq4. Check it.' });

      const res = await fx.send(sessionId, 'short', 'hi').expect(200);

      expect(res.body.status).toBe('FAILED');
      expect(res.body.error).toContain('Incorrect API key provided: [redacted]. Check it.');
      expect(res.body.error).not.toContain('k9Zq4');
      expect(JSON.stringify(await fx.events(sessionId))).not.toContain('k9Zq4');
    });

    it('echoed URL-encoded or JSON-escaped (a request line, a JSON body quoted in the message) never reaches a run either', async () => {
      const key = 'sk/Ab+9"Zq=c';
      const agent = await withKey('ENCODED_MODEL_KEY', key);
      const sessionId = await fx.session(agent.id);
      // PHP's json_encode writes '/' as '\/'; .NET's UrlEncode percent-encodes in lower case.
      const php = JSON.stringify(key).slice(1, -1).replace(/\//g, '\\/');
      const lower = encodeURIComponent(key).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase());
      const message = `rejected POST /v1/chat?key=${encodeURIComponent(key)} with body {"key":${JSON.stringify(key)}} (php "${php}", ${lower})`;
      fx.model.script(agent.model, { status: 401, message });

      const res = await fx.send(sessionId, 'encoded', 'hi').expect(200);

      expect(res.body.status).toBe('FAILED');
      expect(res.body.error).toContain('key=[redacted] with body {"key":"[redacted]"} (php "[redacted]", [redacted])');
      const events = JSON.stringify(await fx.events(sessionId));
      for (const form of [
        php,
        lower,
        encodeURIComponent(key),
        JSON.stringify(key).slice(1, -1),
        JSON.stringify(JSON.stringify(key).slice(1, -1)).slice(1, -1),
      ])
        expect(res.body.error + events).not.toContain(form);
    });

    it('of 1 or 2 characters is refused before anything is sent: the run fails saying so', async () => {
      const agent = await withKey('TINY_MODEL_KEY', 'k9');
      const sessionId = await fx.session(agent.id);

      const res = await fx.send(sessionId, 'tiny', 'hi').expect(200);

      expect(res.body.status).toBe('FAILED');
      expect(res.body.error).toMatch(/TINY_MODEL_KEY holds 2 characters; a model key needs at least 3/);
      expect(fx.model.requestsFor(agent.model)).toHaveLength(0);
    });
  });

  it('asks the model nothing more once the session is closed while a tool call of its run is in flight', async () => {
    const agent = await fx.agent([(await fx.tool('slow_lookup', { httpMethod: 'GET' })).id]);
    const sessionId = await fx.session(agent.id);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const answer = fx.remote.handler;
    fx.remote.handler = (req, res) => {
      if (!req.url?.startsWith('/slow_lookup')) return answer(req, res);
      void released.then(() => answer(req, res));
    };
    fx.model.script(
      agent.model,
      { toolCalls: [{ id: 'slow_1', name: 'slow_lookup', arguments: '{"q":"s-1"}' }] },
      { text: 'should not be asked' },
    );
    try {
      const started = await fx.send(sessionId, 'close-me', 'Look it up slowly.', false).expect(202);
      await waitFor(() => fx.requestsTo('/slow_lookup').length > 0 || null, { description: 'the tool call' });
      await suite.gw.http.delete(`/api/v1/sessions/${sessionId}`).set(fx.runtime).expect(200);
      release();

      const stopped = await waitFor(
        async () => {
          const run = await fx.run(sessionId, started.body.runId);
          return run.status === 'RUNNING' ? null : run;
        },
        { description: 'the run to stop' },
      );
      expect(stopped).toMatchObject({ status: 'FAILED', error: expect.stringContaining('closed') });
      expect(fx.model.requestsFor(agent.model)).toHaveLength(1);
    } finally {
      fx.remote.handler = answer;
      release();
    }
  });

  describe('a model provider changed while its run is between rounds', () => {
    /** Runs one round that calls a slow tool, does `meanwhile` while the tool holds, then lets the run go on. */
    const roundThen = async (
      meanwhile: (agent: { id: string; model: string; providerId: string }) => Promise<void>,
    ) => {
      const { id: toolId, name: tool } = await fx.tool(`held_${Date.now()}`, { httpMethod: 'GET' });
      const agent = await fx.agent([toolId]);
      const sessionId = await fx.session(agent.id);
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const answer = fx.remote.handler;
      fx.remote.handler = (req, res) => {
        if (!req.url?.startsWith(`/${tool}`)) return answer(req, res);
        void released.then(() => answer(req, res));
      };
      fx.model.script(agent.model, { toolCalls: [{ id: 'held_1', name: tool, arguments: '{"q":"h-1"}' }] });
      try {
        const started = await fx.send(sessionId, 'held', 'Look it up.', false).expect(202);
        await waitFor(() => fx.requestsTo(`/${tool}`).length > 0 || null, { description: 'the tool call' });
        await meanwhile(agent);
        release();
        const run = await waitFor(
          async () => {
            const r = await fx.run(sessionId, started.body.runId);
            return r.status === 'RUNNING' ? null : r;
          },
          { description: 'the run to stop' },
        );
        return { agent, run };
      } finally {
        fx.remote.handler = answer;
        release();
      }
    };

    it('deleted: the run asks it nothing more and fails saying so', async () => {
      const { agent, run } = await roundThen(async (a) => {
        fx.model.script(a.model, { text: 'asked a deleted provider' });
        await suite.gw.http.delete(`/api/v1/admin/model-providers/${a.providerId}`).set(suite.gw.admin).expect(200);
      });

      expect(run).toMatchObject({ status: 'FAILED', error: expect.stringContaining('no longer exists') });
      // What to fix, and where: the agent's modelProviderId.
      expect(run.error).toContain(`set another modelProviderId with PATCH /api/v1/admin/agents/${agent.id}`);
      expect(fx.model.requestsFor(agent.model)).toHaveLength(1);
    });

    it('patched: the next round asks it as it is now', async () => {
      const renamed = `renamed-${Date.now()}`;
      const { agent, run } = await roundThen(async (a) => {
        fx.model.script(a.model, { text: 'asked the old model' });
        fx.model.script(renamed, { text: 'asked the new model' });
        await suite.gw.http
          .patch(`/api/v1/admin/model-providers/${a.providerId}`)
          .set(suite.gw.admin)
          .send({ model: renamed })
          .expect(200);
      });

      expect(run).toMatchObject({ status: 'COMPLETED', answer: 'asked the new model' });
      expect(fx.model.requestsFor(agent.model)).toHaveLength(1);
    });

    it("replaced on the agent, the old one deleted: the next round asks the agent's provider as it is now", async () => {
      const other = await fx.agent([]);
      const { agent, run } = await roundThen(async (a) => {
        fx.model.script(other.model, { text: 'asked the agent’s new provider' });
        await suite.gw.http
          .patch(`/api/v1/admin/agents/${a.id}`)
          .set(suite.gw.admin)
          .send({ modelProviderId: other.providerId, systemPrompt: 'You answer tersely.' })
          .expect(200);
        await suite.gw.http.delete(`/api/v1/admin/model-providers/${a.providerId}`).set(suite.gw.admin).expect(200);
      });

      expect(run).toMatchObject({ status: 'COMPLETED', answer: 'asked the agent’s new provider' });
      expect(fx.model.requestsFor(agent.model)).toHaveLength(1);
      expect(fx.model.requestsFor(other.model)[0].body.messages[0]).toEqual({
        role: 'system',
        content: 'You answer tersely.',
      });
    });
  });

  it('stops a run as soon as its session is closed while the model is asked, without waiting for the answer', async () => {
    const agent = await fx.agent([]);
    const sessionId = await fx.session(agent.id);
    fx.model.script(agent.model, { hang: true });
    const started = await fx.send(sessionId, 'close-asking', 'hi', false).expect(202);
    await waitFor(() => fx.model.requestsFor(agent.model).length > 0 || null, { description: 'the model request' });

    await suite.gw.http.delete(`/api/v1/sessions/${sessionId}`).set(fx.runtime).expect(200);

    // The model never answers (MODEL_CALL_TIMEOUT_MS is 120 s here): the run stops because the session closed.
    const stopped = await fx.untilRun(sessionId, started.body.runId, 'FAILED', 5_000);
    expect(stopped.error).toBe(`session ${sessionId} was closed`);
    expect(fx.model.requestsFor(agent.model)).toHaveLength(1);
    expect((await fx.sessionView(sessionId)).status).toBe('CLOSED');
  });

  it('refuses a message while a run works (409 RUN_IN_PROGRESS) and shows the session RUNNING', async () => {
    const agent = await fx.agent([]);
    const sessionId = await fx.session(agent.id);
    const answer = heldAnswers();
    fx.model.script(agent.model, { text: 'slow answer', until: answer.until });
    const started = await fx.send(sessionId, 'slow', 'hi', false).expect(202);
    expect(started.body).toEqual({ runId: expect.any(String), status: 'RUNNING', iterations: 0 });

    try {
      const busy = await fx.send(sessionId, 'other', 'hello?').expect(409);
      expect(busy.body.error.code).toBe('RUN_IN_PROGRESS');
      expect((await fx.sessionView(sessionId)).status).toBe('RUNNING');
    } finally {
      answer.release();
    }
    await fx.untilRun(sessionId, started.body.runId, 'COMPLETED');
  });

  it('refuses a message for an agent without a model provider, and keeps tenants apart', async () => {
    const bare = await suite.gw.http
      .post('/api/v1/admin/agents')
      .set(suite.gw.admin)
      .send({ name: 'no-model', tenantId: fx.tenantId })
      .expect(201);
    const sessionId = await fx.session(bare.body.id);
    const res = await fx.send(sessionId, 'x', 'hi').expect(409);
    expect(res.body.error.code).toBe('AGENT_HAS_NO_MODEL');
    // A closed session says so first: no change to the agent would let it take the message.
    const closedId = await fx.session(bare.body.id);
    await suite.gw.http.delete(`/api/v1/sessions/${closedId}`).set(fx.runtime).expect(200);
    const closed = await fx.send(closedId, 'x', 'hi').expect(409);
    expect(closed.body.error).toMatchObject({
      code: 'SESSION_CLOSED',
      message: `Session ${closedId} is closed; start a new session with POST /api/v1/sessions and send the message there.`,
    });

    const otherRuntime = await (await import('@test/support/gateway-test-app')).createKey(suite.gw, 'globex');
    await suite.gw.http
      .post(`/api/v1/sessions/${sessionId}/messages`)
      .set(otherRuntime)
      .send({ clientMessageId: 'y', content: 'hi' })
      .expect(404);
    await suite.gw.http.get(`/api/v1/sessions/${sessionId}/messages`).set(otherRuntime).expect(404);
  });
});
