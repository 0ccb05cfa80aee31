import { ModelChatClient } from '@app/modules/model-providers/model-chat.client';
import { ModelProvidersRepository } from '@app/modules/model-providers/model-providers.repository';
import { describeEachDialect } from '@test/support/test-database';
import { createKey, gatewayForSuite } from '@test/support/gateway-test-app';
import { AGENT_LOOP_ENV, AgentLoopFixture, MODEL_KEY } from '@test/agent-runs/support/agent-loop.fixture';

const PLATFORM_KEY = 'sk-platform-9876543210';

describeEachDialect('model providers (/admin/model-providers) and the agent-loop fields of agents', (dialect) => {
  const suite = gatewayForSuite(dialect, {
    ...AGENT_LOOP_ENV,
    TOOL_SECRETS: `PLATFORM_MODEL_KEY=${PLATFORM_KEY},TINY_PLATFORM_KEY=k9`,
  });
  const fx = new AgentLoopFixture(() => suite.gw);
  let acmeAdmin: { Authorization: string };
  let globexAdmin: { Authorization: string };
  const body = (overrides: Record<string, unknown> = {}) => ({
    name: `p-${Math.random().toString(36).slice(2, 8)}`,
    tenantId: 'acme',
    kind: 'OPENAI_COMPATIBLE',
    baseUrl: fx.model.baseUrl,
    apiKey: '${secret:MODEL_KEY}',
    model: 'platform-model',
    ...overrides,
  });
  const post = (key: { Authorization: string }, b: Record<string, unknown>, status: number) =>
    suite.gw.http.post('/api/v1/admin/model-providers').set(key).send(b).expect(status);
  /** An agent of tenant acme that uses the provider `providerId`. */
  const agentUsing = async (providerId: string, name: string) =>
    (
      await suite.gw.http
        .post('/api/v1/admin/agents')
        .set(acmeAdmin)
        .send({ name, tenantId: 'acme', modelProviderId: providerId })
        .expect(201)
    ).body.id as string;

  beforeAll(async () => {
    await fx.start();
    acmeAdmin = await createKey(suite.gw, 'acme', 'admin');
    globexAdmin = await createKey(suite.gw, 'globex', 'admin');
  });
  afterAll(() => fx.stop());

  it('stores the key as its reference only and refuses literal keys and credentials in the URL', async () => {
    const created = (await post(acmeAdmin, body({ options: { temperature: 0.2, timeoutMs: 5000 } }), 201)).body;
    expect(created).toMatchObject({ apiKey: '${secret:MODEL_KEY}', version: 1, options: { temperature: 0.2 } });
    const read = await suite.gw.http.get(`/api/v1/admin/model-providers/${created.id}`).set(acmeAdmin).expect(200);
    expect(JSON.stringify(read.body)).not.toContain(MODEL_KEY);

    const literal = await post(acmeAdmin, body({ apiKey: 'sk-live-abcdef' }), 400);
    expect(literal.body.error.code).toBe('VALIDATION_FAILED');
    expect(literal.body.error.message).toContain('apiKey must be a secret reference');
    expect(JSON.stringify(literal.body)).not.toContain('sk-live-abcdef');
    const userinfo = await post(acmeAdmin, body({ baseUrl: 'http://user:pw@127.0.0.1:1/v1' }), 400);
    expect(userinfo.body.error.details.fields).toEqual([
      { field: 'baseUrl', problems: [expect.stringContaining('must not carry a user name or password')] },
    ]);
    expect(userinfo.body.error.details.fields[0].problems[0]).toContain('put the key in apiKey as ${secret:NAME}');
    const inQuery = await post(acmeAdmin, body({ baseUrl: 'http://127.0.0.1:1/v1?api_key=sk-live-abcdef' }), 400);
    expect(inQuery.body.error.message).toContain('must not carry a credential in its query (parameter "api_key")');
    expect(JSON.stringify(inQuery.body)).not.toContain('sk-live-abcdef');
    await post(acmeAdmin, body({ kind: 'ANTHROPIC' }), 400);
  });

  it('keeps tenants apart: platform-wide ones only by the platform key, another tenant sees 404', async () => {
    const forbidden = await post(acmeAdmin, body({ tenantId: null }), 403);
    expect(forbidden.body.error.code).toBe('FORBIDDEN');
    const platform = (await post(suite.gw.admin, body({ tenantId: null, apiKey: '${secret:PLATFORM_MODEL_KEY}' }), 201))
      .body;
    const own = (await post(acmeAdmin, body(), 201)).body;

    const listed = await suite.gw.http.get('/api/v1/admin/model-providers?pageSize=500').set(globexAdmin).expect(200);
    const ids = listed.body.items.map((p: { id: string }) => p.id);
    expect(ids).toContain(platform.id);
    expect(ids).not.toContain(own.id);
    // A tenant's admin sees that a platform provider has a key, not which platform secret holds it.
    const seen = listed.body.items.find((p: { id: string }) => p.id === platform.id);
    expect(seen.apiKey).toBe('${secret:***}');
    const read = await suite.gw.http.get(`/api/v1/admin/model-providers/${platform.id}`).set(globexAdmin).expect(200);
    expect(JSON.stringify(read.body)).not.toContain('PLATFORM_MODEL_KEY');
    const byPlatform = await suite.gw.http.get(`/api/v1/admin/model-providers/${platform.id}`).set(suite.gw.admin);
    expect(byPlatform.body.apiKey).toBe('${secret:PLATFORM_MODEL_KEY}');
    await suite.gw.http.get(`/api/v1/admin/model-providers/${own.id}`).set(globexAdmin).expect(404);
    await suite.gw.http
      .patch(`/api/v1/admin/model-providers/${own.id}`)
      .set(globexAdmin)
      .send({ model: 'x' })
      .expect(404);
    await suite.gw.http
      .patch(`/api/v1/admin/model-providers/${platform.id}`)
      .set(acmeAdmin)
      .send({ model: 'x' })
      .expect(403);

    const patched = await suite.gw.http
      .patch(`/api/v1/admin/model-providers/${own.id}`)
      .set(acmeAdmin)
      .send({ model: 'other-model' })
      .expect(200);
    expect(patched.body).toMatchObject({ model: 'other-model', version: 2 });
    await post(acmeAdmin, body({ name: own.name }), 409);
    await suite.gw.http.delete(`/api/v1/admin/model-providers/${own.id}`).set(acmeAdmin).expect(200);
    await suite.gw.http.get(`/api/v1/admin/model-providers/${own.id}`).set(acmeAdmin).expect(404);
  });

  it('gives a name to one of concurrent creates or renames only (409 MODEL_PROVIDER_NAME_TAKEN), per tenant and platform-wide', async () => {
    const race = (key: { Authorization: string }, b: Record<string, unknown>) =>
      Promise.all(
        Array.from({ length: 8 }, () => suite.gw.http.post('/api/v1/admin/model-providers').set(key).send(b)),
      );
    for (const [key, b] of [
      [acmeAdmin, body({ name: 'raced' })],
      [suite.gw.admin, body({ name: 'raced', tenantId: null })],
    ] as const) {
      const results = await race(key, b);
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
      for (const r of results.filter((x) => x.status === 409))
        expect(r.body.error.code).toBe('MODEL_PROVIDER_NAME_TAKEN');
    }
    const others = await Promise.all([1, 2, 3, 4].map(async () => (await post(acmeAdmin, body(), 201)).body.id));
    const renames = await Promise.all(
      others.map((id) =>
        suite.gw.http.patch(`/api/v1/admin/model-providers/${id}`).set(acmeAdmin).send({ name: 'Renamed' }),
      ),
    );
    expect(renames.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    const listed = await suite.gw.http
      .get('/api/v1/admin/model-providers?pageSize=500')
      .set(suite.gw.admin)
      .expect(200);
    const names = listed.body.items.map((p: { tenantId: string | null; name: string }) => `${p.tenantId}/${p.name}`);
    expect(names.filter((n: string) => n === 'acme/raced')).toHaveLength(1);
    expect(names.filter((n: string) => n === 'null/raced')).toHaveLength(1);
    expect(names.filter((n: string) => n === 'acme/Renamed')).toHaveLength(1);
  });

  it('takes a name of 128 characters whose lower case is longer (İ is i and a combining dot), on create and on PATCH, and refuses it again in other letter case', async () => {
    const name = `${'İ'.repeat(100)}${'p'.repeat(28)}`;
    await post(acmeAdmin, body({ name }), 201);
    const clash = await suite.gw.http
      .post('/api/v1/admin/model-providers')
      .set(acmeAdmin)
      .send(body({ name: `${'İ'.repeat(100)}${'P'.repeat(28)}` }));
    expect([clash.status, clash.body.error?.code]).toEqual([409, 'MODEL_PROVIDER_NAME_TAKEN']);
    const other = (await post(acmeAdmin, body(), 201)).body;
    const renamed = await suite.gw.http
      .patch(`/api/v1/admin/model-providers/${other.id}`)
      .set(acmeAdmin)
      .send({ name: 'İ'.repeat(128) });
    expect([renamed.status, renamed.body.name]).toEqual([200, 'İ'.repeat(128)]);
  });

  it('refuses null for a field a provider must have (400 naming it), and leaves the provider as it was', async () => {
    const own = (await post(acmeAdmin, body(), 201)).body;
    for (const field of ['name', 'kind', 'baseUrl', 'model']) {
      const res = await suite.gw.http
        .patch(`/api/v1/admin/model-providers/${own.id}`)
        .set(acmeAdmin)
        .send({ [field]: null })
        .expect(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details.fields).toEqual([{ field, problems: expect.any(Array) }]);
      expect(res.body.error.details.fields[0].problems.length).toBeGreaterThan(0);
    }
    const read = await suite.gw.http.get(`/api/v1/admin/model-providers/${own.id}`).set(acmeAdmin).expect(200);
    expect(read.body).toMatchObject({
      name: own.name,
      kind: own.kind,
      baseUrl: own.baseUrl,
      model: own.model,
      version: 1,
    });
    const keyless = await suite.gw.http
      .patch(`/api/v1/admin/model-providers/${own.id}`)
      .set(acmeAdmin)
      .send({ apiKey: null })
      .expect(200);
    expect(keyless.body).toMatchObject({ apiKey: null, version: 2 });
  });

  it('checks an agent’s modelProviderId and subAgentIds against its tenant and shows them', async () => {
    const globexProvider = (await post(globexAdmin, body({ tenantId: 'globex' }), 201)).body;
    const acmeProvider = (await post(acmeAdmin, body(), 201)).body;
    const globexAgent = (
      await suite.gw.http
        .post('/api/v1/admin/agents')
        .set(globexAdmin)
        .send({ name: 'g1', tenantId: 'globex' })
        .expect(201)
    ).body;
    const helper = (
      await suite.gw.http
        .post('/api/v1/admin/agents')
        .set(acmeAdmin)
        .send({ name: 'helper', tenantId: 'acme' })
        .expect(201)
    ).body;

    await suite.gw.http
      .post('/api/v1/admin/agents')
      .set(acmeAdmin)
      .send({ name: 'x1', tenantId: 'acme', modelProviderId: globexProvider.id })
      .expect(404);
    const foreign = await suite.gw.http
      .post('/api/v1/admin/agents')
      .set(acmeAdmin)
      .send({ name: 'x2', tenantId: 'acme', subAgentIds: [globexAgent.id] })
      .expect(404);
    expect(foreign.body.error.message).toBe(
      `No agent ${globexAgent.id} in tenant acme; sub-agents must be agents of the same tenant: pick their ids from GET /api/v1/admin/agents.`,
    );
    const itself = await suite.gw.http
      .patch(`/api/v1/admin/agents/${helper.id}`)
      .set(acmeAdmin)
      .send({ subAgentIds: [helper.id] })
      .expect(400);
    expect(itself.body.error.details.fields).toEqual([
      {
        field: 'subAgentIds',
        problems: [`an agent cannot list itself as a sub-agent; remove ${helper.id} (its own id) from subAgentIds`],
      },
    ]);
    const agent = (
      await suite.gw.http
        .post('/api/v1/admin/agents')
        .set(acmeAdmin)
        .send({
          name: 'lead',
          tenantId: 'acme',
          modelProviderId: acmeProvider.id,
          systemPrompt: 'Be brief.',
          subAgentIds: [helper.id],
        })
        .expect(201)
    ).body;
    expect(agent).toMatchObject({
      modelProviderId: acmeProvider.id,
      systemPrompt: 'Be brief.',
      subAgentIds: [helper.id],
    });
    const self = await suite.gw.http
      .patch(`/api/v1/admin/agents/${agent.id}`)
      .set(acmeAdmin)
      .send({ subAgentIds: [agent.id] })
      .expect(400);
    expect(self.body.error.message).toContain('cannot list itself');
    const read = await suite.gw.http.get(`/api/v1/admin/agents/${agent.id}`).set(acmeAdmin).expect(200);
    expect(read.body).toMatchObject({ systemPrompt: 'Be brief.', subAgentIds: [helper.id] });
  });

  it('resolves a platform-wide provider’s key from TOOL_SECRETS only, never from a tenant’s secrets', async () => {
    const platformOk = (
      await post(suite.gw.admin, body({ tenantId: null, apiKey: '${secret:PLATFORM_MODEL_KEY}', model: 'pm-ok' }), 201)
    ).body;
    const platformBad = (await post(suite.gw.admin, body({ tenantId: null, model: 'pm-bad' }), 201)).body;
    fx.model.script('pm-ok', { text: 'platform answer' });

    const good = await fx
      .send(await fx.session(await agentUsing(platformOk.id, 'uses-platform')), 'a', 'hi')
      .expect(200);
    const bad = await fx
      .send(await fx.session(await agentUsing(platformBad.id, 'uses-tenant-secret')), 'b', 'hi')
      .expect(200);

    expect(good.body).toMatchObject({ status: 'COMPLETED', answer: 'platform answer' });
    expect(fx.model.requestsFor('pm-ok')[0].headers.authorization).toBe(`Bearer ${PLATFORM_KEY}`);
    expect(bad.body.status).toBe('FAILED');
    expect(bad.body.error).toContain('references a platform secret that TOOL_SECRETS does not define');
    expect(bad.body.error).not.toContain('MODEL_KEY');
    expect(fx.model.requestsFor('pm-bad')).toHaveLength(0);
  });

  it('fails a run at once, with the outbound guard’s words, when the provider’s address is refused (no retries)', async () => {
    // 127.0.0.2 is loopback and not on OUTBOUND_ALLOW_HOSTS (127.0.0.1 is): nothing may be sent there.
    const provider = (await post(acmeAdmin, body({ baseUrl: 'http://127.0.0.2:9/v1', model: 'guarded' }), 201)).body;
    const agent = await agentUsing(provider.id, 'uses-a-refused-address');

    const res = await fx.send(await fx.session(agent), 'guarded', 'hi').expect(200);

    expect(res.body.status).toBe('FAILED');
    expect(res.body.error).toContain(
      `model provider ${provider.name} was not called: Outbound call to 127.0.0.2:9 refused`,
    );
    expect(res.body.error).toContain('OUTBOUND_ALLOW_HOSTS');
    expect(res.body.error).not.toMatch(/attempts|HTTP 403/);
  });

  it('never names a platform-wide provider’s secret to a tenant, also when the key it holds is too short', async () => {
    const tiny = (
      await post(suite.gw.admin, body({ tenantId: null, apiKey: '${secret:TINY_PLATFORM_KEY}', model: 'pm-tiny' }), 201)
    ).body;
    const agent = await agentUsing(tiny.id, 'uses-tiny-platform-key');

    const res = await fx.send(await fx.session(agent), 'tiny', 'hi').expect(200);

    expect(res.body.status).toBe('FAILED');
    expect(res.body.error).toContain('the platform secret it references is shorter than 3 characters');
    expect(res.body.error).not.toContain('TINY_PLATFORM_KEY');
    expect(fx.model.requestsFor('pm-tiny')).toHaveLength(0);
  });

  it('gives each of two concurrent changes its own version, so no instance keeps a client of the first', async () => {
    const made = (await post(acmeAdmin, body(), 201)).body;
    // Both changes read the provider before either writes (as two admins or two instances at the same moment).
    const repo = suite.gw.app.get(ModelProvidersRepository);
    const find = repo.find.bind(repo);
    let readers = 0;
    let bothRead!: () => void;
    const bothHaveRead = new Promise<void>((resolve) => (bothRead = resolve));
    const spy = jest.spyOn(repo, 'find').mockImplementation(async (id) => {
      const row = await find(id);
      if (id === made.id && ++readers <= 2) {
        if (readers === 2) bothRead();
        await bothHaveRead;
      }
      return row;
    });
    try {
      const patch = (change: Record<string, unknown>) =>
        suite.gw.http.patch(`/api/v1/admin/model-providers/${made.id}`).set(acmeAdmin).send(change).expect(200);
      const answers = await Promise.all([patch({ model: 'model-a' }), patch({ baseUrl: `${fx.model.baseUrl}/b` })]);
      for (const answer of answers) expect(answer.body.version).toBeGreaterThan(made.version);
    } finally {
      spy.mockRestore();
    }
    const stored = (await suite.gw.http.get(`/api/v1/admin/model-providers/${made.id}`).set(acmeAdmin).expect(200))
      .body;
    expect(stored).toMatchObject({ version: made.version + 2, model: 'model-a', baseUrl: `${fx.model.baseUrl}/b` });
  });

  it('drops the client it keeps for a provider, with the key it holds, when the provider is changed or deleted', async () => {
    const agent = await fx.agent([]);
    // The kept clients are private: read through the instance, as nothing else shows them.
    const cached = () => (suite.gw.app.get<unknown>(ModelChatClient) as { clients: Map<string, unknown> }).clients;
    fx.model.script(agent.model, { text: 'first' });
    await fx.send(await fx.session(agent.id), 'c1', 'hi').expect(200);
    expect(cached().has(agent.providerId)).toBe(true);

    await suite.gw.http
      .patch(`/api/v1/admin/model-providers/${agent.providerId}`)
      .set(suite.gw.admin)
      .send({ options: { temperature: 0.1 } })
      .expect(200);
    expect(cached().has(agent.providerId)).toBe(false);

    fx.model.script(agent.model, { text: 'second' });
    await fx.send(await fx.session(agent.id), 'c2', 'hi').expect(200);
    expect(cached().has(agent.providerId)).toBe(true);
    await suite.gw.http.delete(`/api/v1/admin/model-providers/${agent.providerId}`).set(suite.gw.admin).expect(200);
    expect(cached().has(agent.providerId)).toBe(false);
  });
});
