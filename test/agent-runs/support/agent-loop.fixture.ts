import { randomBytes } from 'node:crypto';
import { createKey, TestGateway, toolBody } from '@test/support/gateway-test-app';
import { heldAnswers, ScriptedAnswer, ScriptedModelServer } from '@test/support/scripted-model.server';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import { waitFor } from '@test/support/wait-for';

type Header = { Authorization: string };

/** Gateway settings of the agent-loop suites: loopback allowed, quick polling, a tenant secrets key. */
export const AGENT_LOOP_ENV = {
  OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
  RUN_POLL_INTERVAL_MS: '50',
  MODEL_MAX_RETRIES: '2',
  SECRETS_KEY: randomBytes(32).toString('hex'),
  TASK_WORKERS: '2',
};

/** The tenant's model key, stored as a tenant secret and referenced by the provider. */
export const MODEL_KEY = 'sk-test-0123456789';

/**
 * What the agent-loop suites share: a scripted model, a recording tool server, a runtime key, and helpers that
 * make a provider (one model name per agent, so scripts never mix), an agent bound to tools, and sessions.
 */
export class AgentLoopFixture {
  runtime!: Header;
  model!: ScriptedModelServer;
  remote!: RecordingHttpServer;
  private counter = 0;

  constructor(
    private readonly gw: () => TestGateway,
    readonly tenantId = 'acme',
  ) {}

  async start(): Promise<void> {
    this.model = await new ScriptedModelServer().start();
    this.remote = await new RecordingHttpServer().start();
    this.remote.handler = (req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true, path: req.url, body: req.body }));
    };
    this.runtime = await createKey(this.gw(), this.tenantId, 'runtime');
    await this.gw()
      .http.put(`/api/v1/admin/tenants/${this.tenantId}/secrets/MODEL_KEY`)
      .set(this.gw().admin)
      .send({ value: MODEL_KEY })
      .expect((res) => expect([200, 201]).toContain(res.status)); // 201 set, 200 set again by a second fixture
  }

  async stop(): Promise<void> {
    await this.model?.close();
    await this.remote?.stop();
  }

  async tool(name: string, overrides: Record<string, unknown> = {}): Promise<{ id: string; name: string }> {
    const res = await this.gw()
      .http.post('/api/v1/admin/tools')
      .set(this.gw().admin)
      .send(toolBody({ name, tenantId: this.tenantId, endpoint: this.remote.url(`/${name}`), ...overrides }))
      .expect(201);
    return res.body;
  }

  /** An agent with its own provider (model `m-<n>`), bound to `toolIds`. */
  async agent(
    toolIds: string[],
    overrides: Record<string, unknown> = {},
  ): Promise<{ id: string; model: string; providerId: string }> {
    const n = ++this.counter;
    const model = `m-${n}-${randomBytes(3).toString('hex')}`;
    const provider = await this.gw()
      .http.post('/api/v1/admin/model-providers')
      .set(this.gw().admin)
      .send({
        name: `p-${model}`,
        tenantId: this.tenantId,
        kind: 'OPENAI_COMPATIBLE',
        baseUrl: this.model.baseUrl,
        apiKey: '${secret:MODEL_KEY}',
        model,
      })
      .expect(201);
    const agent = await this.gw()
      .http.post('/api/v1/admin/agents')
      .set(this.gw().admin)
      .send({
        name: `agent-${model}`,
        tenantId: this.tenantId,
        modelProviderId: provider.body.id,
        systemPrompt: 'You are the order assistant.',
        ...overrides,
      })
      .expect(201);
    if (toolIds.length > 0)
      await this.gw()
        .http.put(`/api/v1/admin/agents/${agent.body.id}/tools`)
        .set(this.gw().admin)
        .send({ toolIds })
        .expect(200);
    return { id: agent.body.id, model, providerId: provider.body.id };
  }

  /**
   * An agent that asks a human before a side effect, bound to a SIDE_EFFECT `cancel_order`, whose model first calls it
   * (toolCallId c1, order o-9) and then gives `later` (by default the answer "Cancelled o-9."); and a session of it.
   */
  async cancelOrderSession(
    ...later: ScriptedAnswer[]
  ): Promise<{ agent: { id: string; model: string }; sessionId: string }> {
    const cancel = await this.tool('cancel_order', { sideEffect: 'SIDE_EFFECT' });
    const agent = await this.agent([cancel.id], { sideEffectPolicy: 'APPROVE_SIDE_EFFECTS' });
    this.model.script(
      agent.model,
      { toolCalls: [{ id: 'c1', name: 'cancel_order', arguments: '{"q":"o-9"}' }] },
      ...(later.length ? later : [{ text: 'Cancelled o-9.' }]),
    );
    return { agent, sessionId: await this.session(agent.id) };
  }

  /**
   * A lead agent whose model makes one SUB_AGENT_CALL (waiting `waitMs` for it), then answers "It is still working.",
   * and its helper, whose model answers only once `child` is released.
   */
  async slowSubAgentCall(waitMs: number) {
    const ids = await this.builtinToolIds();
    const helper = await this.agent([]);
    const lead = await this.agent([ids.SUB_AGENT_CALL, ids.CHECK_TASK_STATUS], { subAgentIds: [helper.id] });
    const helperName = (await this.gw().http.get(`/api/v1/admin/agents/${helper.id}`).set(this.gw().admin)).body.name;
    const child = heldAnswers();
    this.model.script(
      lead.model,
      {
        toolCalls: [
          {
            id: 'delegate',
            name: 'SUB_AGENT_CALL',
            arguments: JSON.stringify({ agent: helperName, task: 'slow work', waitMs }),
          },
        ],
      },
      { text: 'It is still working.' },
    );
    this.model.script(helper.model, { text: 'done at last', until: child.until });
    return { lead, helper, child };
  }

  /** The built-in tools' ids, by name. */
  async builtinToolIds(): Promise<Record<string, string>> {
    const res = await this.gw()
      .http.get('/api/v1/admin/tools?source=BUILTIN&pageSize=500')
      .set(this.gw().admin)
      .expect(200);
    return Object.fromEntries(res.body.items.map((t: { name: string; id: string }) => [t.name, t.id]));
  }

  async session(agentId: string, permissions: string[] = []): Promise<string> {
    const res = await this.gw()
      .http.post('/api/v1/sessions')
      .set(this.runtime)
      .send({ agentId, userId: 'u1', permissions })
      .expect(201);
    return res.body.id;
  }

  send(sessionId: string, clientMessageId: string, content: string, wait = true) {
    return this.gw()
      .http.post(`/api/v1/sessions/${sessionId}/messages`)
      .set(this.runtime)
      .send({ clientMessageId, content, wait });
  }

  async run(sessionId: string, runId: string): Promise<Record<string, any>> {
    return (await this.gw().http.get(`/api/v1/sessions/${sessionId}/runs/${runId}`).set(this.runtime).expect(200)).body;
  }

  /** Polls the run until it has `status`. */
  untilRun(sessionId: string, runId: string, status: string, timeoutMs = 15_000): Promise<Record<string, any>> {
    return waitFor(
      async () => {
        const run = await this.run(sessionId, runId);
        return run.status === status ? run : null;
      },
      { timeoutMs, intervalMs: 50, description: `run ${runId} ${status}` },
    );
  }

  async sessionView(sessionId: string): Promise<Record<string, any>> {
    return (await this.gw().http.get(`/api/v1/sessions/${sessionId}`).set(this.runtime).expect(200)).body;
  }

  async messages(sessionId: string): Promise<Array<Record<string, any>>> {
    return (await this.gw().http.get(`/api/v1/sessions/${sessionId}/messages`).set(this.runtime).expect(200)).body
      .items;
  }

  async events(sessionId: string): Promise<Array<Record<string, any>>> {
    return (await this.gw().http.get(`/api/v1/sessions/${sessionId}/events?limit=1000`).set(this.runtime).expect(200))
      .body.items;
  }

  requestsTo(path: string) {
    return this.remote.requests.filter((r) => r.url.startsWith(path));
  }
}
