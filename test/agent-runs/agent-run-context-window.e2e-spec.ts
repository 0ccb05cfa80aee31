import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { AGENT_LOOP_ENV, AgentLoopFixture } from './support/agent-loop.fixture';

type SentMessage = { role: string; content?: string | null; tool_call_id?: string; tool_calls?: Array<{ id: string }> };

/** Every tool message answers a call of the assistant message before it, and every call is answered. */
function expectWellFormed(messages: SentMessage[]): void {
  const open = new Set<string>();
  for (const m of messages) {
    if (m.role === 'tool') {
      expect(open.has(m.tool_call_id!)).toBe(true);
      open.delete(m.tool_call_id!);
    } else {
      expect([...open]).toEqual([]);
      for (const c of m.tool_calls ?? []) open.add(c.id);
    }
  }
}

/**
 * A provider with `options.contextWindowTokens`: the loop sends the latest part of a conversation that would not
 * fit. Older tool results become a note naming READ_TOOL_RESULT, then the oldest turns are left out (the system
 * prompt says how many); the stored conversation keeps everything.
 */
describe('the agent loop fits the conversation into the model context window', () => {
  const suite = gatewayForSuite('sqlite', AGENT_LOOP_ENV);
  const fx = new AgentLoopFixture(() => suite.gw);
  const PAGE = 'p'.repeat(4500); // 1,500 estimated tokens

  beforeAll(async () => {
    await fx.start();
    fx.remote.handler = (_req, res) => {
      res.setHeader('content-type', 'text/plain');
      res.end(PAGE);
    };
  });
  afterAll(() => fx.stop());

  it('shortens older tool results first, then leaves out the oldest turns; every call keeps its answer', async () => {
    const page = await fx.tool('read_page', {
      httpMethod: 'GET',
      description: 'Read the page.',
      parameters: { type: 'object', properties: {} },
    });
    const agent = await fx.agent([page.id]);
    await suite.gw.http
      .patch(`/api/v1/admin/model-providers/${agent.providerId}`)
      .set(suite.gw.admin)
      .send({ options: { contextWindowTokens: 3072, maxTokens: 512 } })
      .expect(200);
    const sessionId = await fx.session(agent.id);
    fx.model.script(
      agent.model,
      { toolCalls: [{ id: 'call_1', name: 'read_page', arguments: '{}' }] },
      { toolCalls: [{ id: 'call_2', name: 'read_page', arguments: '{}' }] },
      { text: 'Both pages read.' },
    );
    await fx.send(sessionId, 'msg-1', 'Read the page twice.').expect(200);

    const [second, third] = fx.model
      .requestsFor(agent.model)
      .slice(1)
      .map((r) => r.body.messages as SentMessage[]);
    // Round 2: one result, in full.
    expect(second.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual([PAGE]);
    // Round 3: two results are over the window less the answer's 512 and the tools: the older becomes a note.
    const results = third.filter((m) => m.role === 'tool');
    expect(results.map((m) => m.tool_call_id)).toEqual(['call_1', 'call_2']);
    expect(results[0].content).toBe(
      `[result left out to fit the model's context window (4500 characters); call READ_TOOL_RESULT with {"toolCallId":"call_1"} to read it again]`,
    );
    expect(results[1].content).toBe(PAGE);
    expect(third[0]).toEqual({ role: 'system', content: 'You are the order assistant.' });
    expectWellFormed(third);

    // Two long questions later, the oldest turns are left out whole and the system prompt says so.
    const longQuestion = (n: number) => `Question ${n}: ${'q'.repeat(4500)}`;
    fx.model.script(agent.model, { text: 'Answer 2.' }, { text: 'Answer 3.' });
    await fx.send(sessionId, 'msg-2', longQuestion(2)).expect(200);
    await fx.send(sessionId, 'msg-3', longQuestion(3)).expect(200);
    const last = fx.model.requestsFor(agent.model).at(-1)!.body.messages as SentMessage[];
    expect(last.at(-1)).toEqual({ role: 'user', content: longQuestion(3) });
    expect(last.map((m) => m.content)).not.toContain('Read the page twice.');
    expect(last[0].role).toBe('system');
    expect(last[0].content).toMatch(
      /^You are the order assistant\.\n\n\[\d+ earlier messages? of this conversation left out to fit the model's context window\.\]$/,
    );
    const omitted = Number(/\[(\d+) earlier/.exec(last[0].content!)![1]);
    // The session held 9 messages when the last question was asked: what was sent and what was left out is all.
    expect(last.length - 1 + omitted).toBe(9);
    expect(omitted).toBeGreaterThanOrEqual(6); // the first run's turns and the second question at least
    expect(last[1].role).not.toBe('tool');
    expectWellFormed(last);

    // The stored conversation is whole.
    const stored = await fx.messages(sessionId);
    expect(stored).toHaveLength(10);
    expect(stored.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual([PAGE, PAGE]);
  });

  it('a provider refusing the conversation as longer than the window it names is asked once more within it', async () => {
    const agent = await fx.agent([]);
    const sessionId = await fx.session(agent.id);
    fx.model.script(agent.model, { text: 'First.' });
    await fx.send(sessionId, 'msg-1', `Old question: ${'o'.repeat(6000)}`).expect(200);
    const refusal =
      "This model's maximum context length is 2048 tokens. However, you requested 2600 tokens (2088 in the messages, 512 in the completion).";
    fx.model.script(agent.model, { status: 400, message: refusal }, { text: 'Second.' });
    const res = await fx.send(sessionId, 'msg-2', 'New question').expect(200);
    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'Second.' });
    const [refused, retried] = fx.model
      .requestsFor(agent.model)
      .slice(1)
      .map((r) => r.body.messages as SentMessage[]);
    expect(refused.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(retried.map((m) => m.content)).toEqual([
      "You are the order assistant.\n\n[1 earlier message of this conversation left out to fit the model's context window.]",
      'First.',
      'New question',
    ]);

    // Refused again within that window: the run fails with the provider's words.
    fx.model.script(agent.model, { status: 400, message: refusal }, { status: 400, message: refusal });
    const failed = await fx.send(sessionId, 'msg-3', 'q'.repeat(9000)).expect(200);
    expect(failed.body).toMatchObject({ status: 'FAILED' });
    expect(failed.body.error).toContain('maximum context length is 2048 tokens');
    expect(fx.model.requestsFor(agent.model)).toHaveLength(5);
  });

  it('reads the refusal of a server that puts the error at the top level (vLLM before 0.6) as well', async () => {
    const agent = await fx.agent([]);
    const sessionId = await fx.session(agent.id);
    fx.model.script(agent.model, { text: 'First.' });
    await fx.send(sessionId, 'msg-1', `Old question: ${'o'.repeat(6000)}`).expect(200);
    const message = "This model's maximum context length is 2048 tokens. However, you requested 2600 tokens.";
    const body = { object: 'error', message, type: 'BadRequestError', param: null, code: 400 };
    fx.model.script(agent.model, { status: 400, body }, { text: 'Second.' });
    const res = await fx.send(sessionId, 'msg-2', 'New question').expect(200);
    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'Second.' });
    expect(fx.model.requestsFor(agent.model).at(-1)!.body.messages).toHaveLength(3);
  });

  it('validates the window: at least 1,024 tokens, and more than the answer reserves (maxTokens)', async () => {
    const agent = await fx.agent([]);
    const patch = (options: Record<string, unknown>, status: number) =>
      suite.gw.http
        .patch(`/api/v1/admin/model-providers/${agent.providerId}`)
        .set(suite.gw.admin)
        .send({ options })
        .expect(status);
    const reserve = await patch({ contextWindowTokens: 2048, maxTokens: 2048 }, 400);
    expect(reserve.body.error.details.fields).toEqual([
      { field: 'options.maxTokens', problems: [expect.stringContaining('less than contextWindowTokens')] },
    ]);
    const small = await patch({ contextWindowTokens: 512 }, 400);
    expect(small.body.error.details.fields[0].field).toBe('options.contextWindowTokens');
    const ok = await patch({ contextWindowTokens: 8192, maxTokens: 1024 }, 200);
    expect(ok.body.options).toEqual({ contextWindowTokens: 8192, maxTokens: 1024 });
  });

  it('without a context window the whole conversation is sent', async () => {
    const page = await fx.tool('read_page_whole', {
      httpMethod: 'GET',
      description: 'Read the page.',
      parameters: { type: 'object', properties: {} },
    });
    const agent = await fx.agent([page.id]);
    const sessionId = await fx.session(agent.id);
    fx.model.script(
      agent.model,
      { toolCalls: [{ id: 'call_1', name: 'read_page_whole', arguments: '{}' }] },
      { toolCalls: [{ id: 'call_2', name: 'read_page_whole', arguments: '{}' }] },
      { text: 'Both pages read.' },
    );
    await fx.send(sessionId, 'msg-1', 'Read the page twice.').expect(200);
    const third = fx.model.requestsFor(agent.model)[2].body.messages as SentMessage[];
    expect(third.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual([PAGE, PAGE]);
    expect(third[0].content).toBe('You are the order assistant.');
  });

  it('sends the latest part of a session longer than one read of its conversation (100,000 messages)', async () => {
    const agent = await fx.agent([]);
    await suite.gw.http
      .patch(`/api/v1/admin/model-providers/${agent.providerId}`)
      .set(suite.gw.admin)
      .send({ options: { contextWindowTokens: 8192 } })
      .expect(200);
    const sessionId = await fx.session(agent.id);
    // A long-lived session's 100,000 earlier messages: questions and answers.
    await suite.gw.app.get(DataSource).transaction(async (m) => {
      for (let from = 1; from <= 100_000; from += 500) {
        const rows = Array.from({ length: 500 }, (_, i) => from + i).map((n) => [
          randomUUID(),
          sessionId,
          n,
          fx.tenantId,
          'earlier-run',
          n % 2 === 1 ? 'user' : 'assistant',
          `earlier message ${n}`,
          0,
        ]);
        await m.query(
          `INSERT INTO agent_message (id, session_id, seq, tenant_id, run_id, role, content, created_at) VALUES ${rows
            .map(() => '(?, ?, ?, ?, ?, ?, ?, ?)')
            .join(', ')}`,
          rows.flat(),
        );
      }
    });
    fx.model.script(agent.model, { text: 'Here is the fresh answer.' });

    const res = await fx.send(sessionId, 'latest', 'The latest question').expect(200);

    expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'Here is the fresh answer.' });
    const sent = fx.model.requestsFor(agent.model)[0].body.messages as SentMessage[];
    expect(sent.at(-1)).toEqual({ role: 'user', content: 'The latest question' });
    expect(sent.at(-2)).toEqual({ role: 'assistant', content: 'earlier message 100000' });
  }, 60_000);

  describe('a conversation of large messages is read within a bound, not whole', () => {
    const MILLION = 1_000_000;
    /** `count` earlier messages of a million characters each (questions and answers), seq 1..count. */
    const earlier = async (sessionId: string, count: number) => {
      for (let n = 1; n <= count; n++)
        await suite.gw.app
          .get(DataSource)
          .query(
            'INSERT INTO agent_message (id, session_id, seq, tenant_id, run_id, role, content, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 0)',
            [
              randomUUID(),
              sessionId,
              n,
              fx.tenantId,
              'earlier-run',
              n % 2 === 1 ? 'user' : 'assistant',
              `${n}`.padEnd(MILLION, '.'),
            ],
          );
    };

    it('a page of GET .../messages holds at most 8 Mi characters; nextAfter reads on', async () => {
      const agent = await fx.agent([]);
      const sessionId = await fx.session(agent.id);
      await earlier(sessionId, 10);

      const first = await suite.gw.http
        .get(`/api/v1/sessions/${sessionId}/messages?limit=1000`)
        .set(fx.runtime)
        .expect(200);
      const rest = await suite.gw.http
        .get(`/api/v1/sessions/${sessionId}/messages?limit=1000&after=${first.body.nextAfter}`)
        .set(fx.runtime)
        .expect(200);

      expect(first.body.items.map((m: { seq: number }) => m.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(first.body.nextAfter).toBe(8);
      expect(rest.body.items.map((m: { seq: number }) => m.seq)).toEqual([9, 10]);
      expect(rest.body.items[0].content).toHaveLength(MILLION);
    });

    it('a model round is made from at most 32 Mi characters of the latest conversation', async () => {
      const agent = await fx.agent([]);
      const sessionId = await fx.session(agent.id);
      await earlier(sessionId, 40);
      fx.model.script(agent.model, { text: 'Read what fits.' });

      const res = await fx.send(sessionId, 'bounded', 'The latest question').expect(200);

      expect(res.body).toMatchObject({ status: 'COMPLETED', answer: 'Read what fits.' });
      const sent = fx.model.requestsFor(agent.model)[0].body.messages as SentMessage[];
      expect(sent.at(-1)).toEqual({ role: 'user', content: 'The latest question' });
      // The latest 33 earlier messages (33,000,000 characters) are the most that fit with it: seq 8..40.
      expect(sent.slice(1, -1).map((m) => Number.parseInt(m.content!, 10))).toEqual(
        Array.from({ length: 33 }, (_, i) => i + 8),
      );
    }, 60_000);
  });
});
