import { createTestDatabaseUrl, TestDatabase } from '@test/support/test-database';
import { createKey, startTestGateway, TestGateway, toolBody } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import {
  anthropicSpecViolations,
  geminiSpecViolations,
  openAiStrictSpecViolations,
  openAiSpecViolations,
} from '@app/modules/agent-config/formats/model-formats';

/**
 * OpenAI strict mode through the whole gateway (issue 11): `strict: true` on tool-specs, and the
 * arguments a strict (or Gemini) model sends mapped back before the tool's own schema judges them, so
 * the remote never sees a null it did not ask for.
 */
describe('strict tool specs and the arguments that come back', () => {
  let db: TestDatabase;
  let gw: TestGateway;
  let remote: RecordingHttpServer;
  let runtime: { Authorization: string };
  let agentId: string;
  const ids: Record<string, string> = {};

  const toolSpecs = (body: Record<string, unknown>) =>
    gw.http
      .post(`/api/v1/agents/${agentId}/tool-specs`)
      .set(runtime)
      .send({ userId: 'u1', permissions: [], ...body });

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    db = await createTestDatabaseUrl('sqlite');
    gw = await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
    const create = async (name: string, parameters: Record<string, unknown>) => {
      ids[name] = (
        await gw.http
          .post('/api/v1/admin/tools')
          .set(gw.admin)
          .send(toolBody({ name, tenantId: 'acme', endpoint: remote.url(`/${name}`), parameters }))
          .expect(201)
      ).body.id;
    };
    await create('search', {
      type: 'object',
      properties: {
        q: { type: 'string' },
        limit: { type: 'integer', minimum: 1 },
        filter: { type: 'object', properties: { lang: { type: 'string' } } },
      },
      required: ['q'],
    });
    await create('tag', {
      type: 'object',
      properties: { labels: { type: 'object', additionalProperties: { type: 'string' } } },
      required: ['labels'],
    });
    await create('set_env', { type: 'object', additionalProperties: { type: 'string' } });
    await create('graph', {
      type: 'object',
      properties: { $top: { type: 'integer' }, 'filter[name]': { type: 'string' } },
      required: ['$top'],
    });
    await create('lookup', {
      type: 'object',
      properties: { code: { type: 'string', default: 'AB', format: 'uri' } },
      required: ['code'],
    });
    runtime = await createKey(gw, 'acme', 'runtime');
    agentId = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'bot', tenantId: 'acme' }).expect(201)
    ).body.id;
    await gw.http
      .put(`/api/v1/admin/agents/${agentId}/tools`)
      .set(gw.admin)
      .send({ toolIds: [ids.search, ids.tag, ids.graph, ids.set_env, ids.lookup] })
      .expect(200);
  });
  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
    await db?.drop();
  });
  beforeEach(() => (remote.requests.length = 0));

  it('emits strict: true with every property required, optional ones nullable, and strict: false with warnings for a map', async () => {
    const res = await toolSpecs({ strict: true, explain: true }).expect(200);
    const byName = Object.fromEntries(res.body.tools.map((t: { function: { name: string } }) => [t.function.name, t]));
    expect(byName.search.function).toMatchObject({
      strict: true,
      parameters: {
        required: ['q', 'limit', 'filter'],
        additionalProperties: false,
        properties: {
          limit: { type: ['integer', 'null'] },
          filter: { type: ['object', 'null'], required: ['lang'], additionalProperties: false },
        },
      },
    });
    expect(openAiStrictSpecViolations(byName.search)).toEqual([]);
    expect(byName.tag.function.strict).toBe(false);
    expect(openAiSpecViolations(byName.tag)).toEqual([]);
    const decisions = Object.fromEntries(res.body.decisions.map((d: { name: string }) => [d.name, d]));
    expect(decisions.tag.warnings).toEqual([expect.stringContaining('is a map')]);
    expect(decisions.search.warnings).toBeUndefined();
  });

  it("emits the Responses API's flat tools, strict by default, with warnings for the tools that cannot be", async () => {
    const res = await toolSpecs({ format: 'openai-responses', explain: true }).expect(200);
    const byName = Object.fromEntries(res.body.tools.map((t: { name: string }) => [t.name, t]));
    expect(byName.search).toMatchObject({
      type: 'function',
      name: 'search',
      strict: true,
      parameters: { additionalProperties: false },
    });
    expect(byName.tag).toMatchObject({ type: 'function', name: 'tag', strict: false });
    expect(res.body.decisions.find((d: { name: string }) => d.name === 'tag').warnings).toEqual([
      expect.stringContaining('is a map'),
    ]);
  });

  it('names in explain each keyword a format moved into the description, by its node, for strict and gemini', async () => {
    for (const [body, provider] of [
      [{ strict: true }, 'OpenAI strict mode'],
      [{ format: 'openai-responses' }, 'OpenAI strict mode'],
      [{ format: 'gemini' }, 'Gemini'],
    ] as const) {
      const res = await toolSpecs({ ...body, explain: true }).expect(200);
      expect(res.body.decisions.find((d: { name: string }) => d.name === 'lookup').warnings).toEqual([
        `#/properties/code: default, format moved into the description, as ${provider} does not take them there: the ` +
          `model reads them as text and ${provider} no longer enforces them (the gateway still checks each call ` +
          "against the tool's own schema)",
      ]);
    }
  });

  it('emits no strict flag without strict: true', async () => {
    const res = await toolSpecs({}).expect(200);
    expect(res.body.tools.every((t: { function: object }) => !('strict' in t.function))).toBe(true);
  });

  it('answers 400 VALIDATION_FAILED naming strict for a format other than openai', async () => {
    const res = await toolSpecs({ strict: true, format: 'gemini' }).expect(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.fields).toEqual([expect.objectContaining({ field: 'strict' })]);
  });

  it('previews the same answer with an admin key, and 404 for an agent of another tenant', async () => {
    const runtimeAnswer = (await toolSpecs({ strict: true, explain: true }).expect(200)).body;
    const preview = await gw.http
      .post(`/api/v1/admin/agents/${agentId}/tool-specs`)
      .set(gw.admin)
      .send({ userId: 'u1', permissions: [], strict: true, explain: true })
      .expect(200);
    expect(preview.body).toEqual(runtimeAnswer);
    const globexAdmin = await createKey(gw, 'globex', 'admin');
    await gw.http
      .post(`/api/v1/admin/agents/${agentId}/tool-specs`)
      .set(globexAdmin)
      .send({ userId: 'u1', permissions: [] })
      .expect(404);
    await gw.http
      .post(`/api/v1/admin/agents/${agentId}/tool-specs`)
      .set(runtime)
      .send({ userId: 'u1', permissions: [] })
      .expect(403);
  });

  it('removes the nulls a strict model sends for optional properties before validating: the remote never sees them', async () => {
    const session = (
      await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u1', permissions: [] }).expect(201)
    ).body.id;
    const res = await gw.http
      .post(`/api/v1/sessions/${session}/act`)
      .set(runtime)
      .send({
        iteration: 1,
        toolCalls: [
          { id: 'c1', name: 'search', arguments: JSON.stringify({ q: 'x', limit: null, filter: { lang: null } }) },
        ],
      })
      .expect(200);
    expect(res.body.results[0]).toMatchObject({ status: 'COMPLETED' });
    expect(JSON.parse(remote.requests[0].body)).toEqual({ q: 'x', filter: {} });
  });

  it('parses a map Gemini sent as JSON text back into an object', async () => {
    const res = await gw.http
      .post('/api/v1/tools/tag/execute')
      .set(runtime)
      .send({ agentId, userId: 'u1', permissions: [], arguments: { labels: '{"env":"prod"}' } });
    expect(res.status).toBe(200);
    expect(JSON.parse(remote.requests[0].body)).toEqual({ labels: { env: 'prod' } });
  });

  it('gives a Gemini model a way to pass the arguments of a tool that takes a map, and the remote gets the map', async () => {
    const res = await toolSpecs({ format: 'gemini' }).expect(200);
    const setEnv = res.body.tools.find((t: { name: string }) => t.name === 'set_env');
    expect(geminiSpecViolations(setEnv)).toEqual([]);
    const [property] = Object.keys(setEnv.parameters?.properties ?? {});
    expect(setEnv.parameters).toMatchObject({ required: [property], properties: { [property]: { type: 'string' } } });
    const call = await gw.http
      .post('/api/v1/tools/set_env/execute')
      .set(runtime)
      .send({ agentId, userId: 'u1', permissions: [], arguments: { [property]: '{"REGION":"eu","TIER":"gold"}' } });
    expect(call.status).toBe(200);
    expect(call.body.status).toBe('COMPLETED');
    expect(JSON.parse(remote.requests[0].body)).toEqual({ REGION: 'eu', TIER: 'gold' });
  });

  it("unwraps a map's arguments_json only from a model given the Gemini spec (or one act does not name)", async () => {
    const session = (
      await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u1', permissions: [] }).expect(201)
    ).body.id;
    const sent = { arguments_json: '{"REGION":"eu"}' };
    const act = (iteration: number, format?: string) =>
      gw.http
        .post(`/api/v1/sessions/${session}/act`)
        .set(runtime)
        .send({ iteration, toolCalls: [{ id: `map-${iteration}`, name: 'set_env', arguments: sent }], format })
        .expect(200);

    await act(1, 'gemini');
    await act(2, 'openai');
    await act(3, 'anthropic');
    await act(4);

    expect(remote.requests.map((r) => JSON.parse(r.body))).toEqual([{ REGION: 'eu' }, sent, sent, { REGION: 'eu' }]);
    const refused = await gw.http
      .post(`/api/v1/sessions/${session}/act`)
      .set(runtime)
      .send({ iteration: 5, toolCalls: [{ id: 'map-5', name: 'set_env', arguments: sent }], format: 'palm' })
      .expect(400);
    expect(refused.body.error.details.fields).toEqual([expect.objectContaining({ field: 'format' })]);
  });

  it("executes a map tool's arguments_json as the named format reads it", async () => {
    const sent = { arguments_json: '{"REGION":"eu"}' };
    const execute = (format: string) =>
      gw.http
        .post('/api/v1/tools/set_env/execute')
        .set(runtime)
        .send({ agentId, userId: 'u1', permissions: [], arguments: sent, format })
        .expect(200);

    await execute('openai');
    await execute('gemini');

    expect(remote.requests.map((r) => JSON.parse(r.body))).toEqual([sent, { REGION: 'eu' }]);
  });

  it('sends Anthropic keys it accepts for property names it refuses, and maps them back before the remote sees them', async () => {
    const res = await toolSpecs({ format: 'anthropic' }).expect(200);
    const graph = res.body.tools.find((t: { name: string }) => t.name === 'graph');
    expect(anthropicSpecViolations(graph)).toEqual([]);
    const keys = Object.keys(graph.input_schema.properties);
    expect(keys).toEqual([expect.stringMatching(/^_top_[0-9a-f]{8}$/), expect.stringMatching(/^filter_name__/)]);
    expect(graph.input_schema.required).toEqual([keys[0]]);
    const call = await gw.http
      .post('/api/v1/tools/graph/execute')
      .set(runtime)
      .send({ agentId, userId: 'u1', permissions: [], arguments: { [keys[0]]: 5, [keys[1]]: 'ann' } });
    expect(call.status).toBe(200);
    expect(JSON.parse(remote.requests[0].body)).toEqual({ $top: 5, 'filter[name]': 'ann' });
  });
});
