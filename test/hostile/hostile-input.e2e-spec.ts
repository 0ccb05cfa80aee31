import request from 'supertest';
import { createTestDatabaseUrl, TestDatabase } from '@test/support/test-database';
import { createKey, startTestGateway, TestGateway, toolBody } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';

/** `{"a":{"a":...}}` nested `depth` objects deep around `leaf`, as raw JSON text (no recursion to build it). */
const nestedJson = (depth: number, leaf = '1'): string => '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);

/**
 * Hostile input answered with a 400 (or refused in milliseconds), never a 500 or a frozen event loop: deep JSON
 * bodies, JSON Schema dialects ajv cannot check, patterns RE2 cannot run, a catastrophic-backtracking pattern,
 * an out-of-range page.
 */
describe('hostile input: clear 400s, no stall', () => {
  let db: TestDatabase;
  let remote: RecordingHttpServer;
  let gw: TestGateway;
  let runtime: { Authorization: string };
  let agentId: string;
  let sessionId: string;

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    db = await createTestDatabaseUrl('sqlite');
    gw = await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
    runtime = await createKey(gw, 'acme', 'runtime');
    const hostile = toolBody({
      name: 'hostile',
      tenantId: 'acme',
      endpoint: remote.url('/hostile'),
      parameters: { type: 'object', properties: { q: { type: 'string', pattern: '^(a+)+$' } }, required: ['q'] },
    });
    const tool = (await gw.http.post('/api/v1/admin/tools').set(gw.admin).send(hostile).expect(201)).body;
    agentId = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'a', tenantId: 'acme' }).expect(201)
    ).body.id;
    await gw.http
      .put(`/api/v1/admin/agents/${agentId}/tools`)
      .set(gw.admin)
      .send({ toolIds: [tool.id] })
      .expect(200);
    sessionId = (
      await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u1', permissions: [] }).expect(201)
    ).body.id;
  });
  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
    await db?.drop();
  });

  const postJson = (http: ReturnType<typeof request>, path: string, headers: Record<string, string>, text: string) =>
    http.post(path).set(headers).set('content-type', 'application/json').send(text);
  const expectTooDeep = (res: request.Response) => {
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.message).toContain('nested deeper than 64 levels');
  };

  describe('JSON nested 5,000 levels deep', () => {
    it('act: 400 naming the limit', async () => {
      const body = `{"iteration":1,"toolCalls":[{"id":"deep","name":"hostile","arguments":${nestedJson(5000)}}]}`;
      expectTooDeep(await postJson(gw.http, `/api/v1/sessions/${sessionId}/act`, runtime, body));
    });

    it('act with arguments as a JSON string nested 5,000 deep: the call fails naming the limit, nothing is sent', async () => {
      const sentBefore = remote.requests.length;
      const body = { iteration: 1, toolCalls: [{ id: 'deep-string', name: 'hostile', arguments: nestedJson(5000) }] };
      const res = await gw.http.post(`/api/v1/sessions/${sessionId}/act`).set(runtime).send(body);
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.body.results)).toContain('nested deeper than 64 levels');
      expect(remote.requests).toHaveLength(sentBefore);
    });

    it('execute, tool-specs, admin agents and tools bodies: 400', async () => {
      expectTooDeep(
        await postJson(
          gw.http,
          '/api/v1/tools/hostile/execute',
          runtime,
          `{"userId":"u1","agentId":"${agentId}","arguments":${nestedJson(5000)}}`,
        ),
      );
      expectTooDeep(
        await postJson(
          gw.http,
          `/api/v1/agents/${agentId}/tool-specs`,
          runtime,
          `{"userId":"u1","permissions":${'['.repeat(5000)}${']'.repeat(5000)}}`,
        ),
      );
      expectTooDeep(
        await postJson(
          gw.http,
          '/api/v1/admin/agents',
          gw.admin,
          `{"name":"deep","tenantId":"acme","description":${nestedJson(5000)}}`,
        ),
      );
      const tool = JSON.stringify(toolBody({ name: 'deep_tool', tenantId: 'acme', parameters: '@' }));
      expectTooDeep(
        await postJson(
          gw.http,
          '/api/v1/admin/tools',
          gw.admin,
          tool.replace('"@"', `{"type":"object","properties":{"x":${nestedJson(5000)}}}`),
        ),
      );
    });

    it('64 levels are still accepted', async () => {
      const body = `{"iteration":1,"toolCalls":[{"id":"deep-ok","name":"hostile","arguments":{"q":"aaa","extra":${nestedJson(58)}}}]}`;
      const res = await postJson(gw.http, `/api/v1/sessions/${sessionId}/act`, runtime, body);
      expect(res.status).toBe(200);
    });
  });

  describe('JSON Schema dialects and patterns at registration', () => {
    it.each([
      ['http://json-schema.org/draft-04/schema#'],
      ['http://json-schema.org/draft-06/schema#'],
      ['https://example.com/unknown-meta'],
    ])('$schema %s: 400 naming the supported drafts', async ($schema) => {
      const res = await gw.http
        .post('/api/v1/admin/tools')
        .set(gw.admin)
        .send(toolBody({ tenantId: 'acme', parameters: { $schema, type: 'object', properties: {} } }));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details.fields).toEqual([
        {
          field: 'parameters',
          problems: [
            expect.stringContaining(
              'draft-07/schema, https://json-schema.org/draft/2019-09/schema, https://json-schema.org/draft/2020-12/schema',
            ),
          ],
        },
      ]);
    });

    it('a lookahead pattern: 400 naming the pattern and why', async () => {
      const parameters = { type: 'object', properties: { pw: { type: 'string', pattern: '^(?=.*[0-9]).{8,}$' } } };
      const res = await gw.http
        .post('/api/v1/admin/tools')
        .set(gw.admin)
        .send(toolBody({ tenantId: 'acme', parameters }));
      expect(res.status).toBe(400);
      expect(res.body.error.message).toContain('pattern "^(?=.*[0-9]).{8,}$" is not supported');
      expect(res.body.error.message).toContain('lookahead');
    });

    it('a $ref back to the schema itself in place (allOf: [{$ref: "#"}]): 400 naming the ref, not a 500 later', async () => {
      const parameters = { type: 'object', properties: { q: { type: 'string' } }, allOf: [{ $ref: '#' }] };
      const res = await gw.http
        .post('/api/v1/admin/tools')
        .set(gw.admin)
        .send(toolBody({ tenantId: 'acme', parameters }));
      expect(res.status).toBe(400);
      expect(res.body.error.details.fields).toEqual([
        { field: 'parameters', problems: [expect.stringContaining('$ref "#" refers back to itself')] },
      ]);
    });
  });

  it('?page=99999999999999999999: 400 naming the maximum', async () => {
    const res = await gw.http.get('/api/v1/admin/tools?page=99999999999999999999').set(gw.admin);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.fields).toEqual([{ field: 'page', problems: [expect.stringContaining('1000000')] }]);
  });

  it('a catastrophic-backtracking pattern is matched in milliseconds and /health answers meanwhile', async () => {
    const hostileCall = (id: string, length: number) =>
      gw.http
        .post(`/api/v1/sessions/${sessionId}/act`)
        .set(runtime)
        .send({ iteration: 1, toolCalls: [{ id, name: 'hostile', arguments: { q: 'a'.repeat(length) + '!' } }] });
    const sentBefore = remote.requests.length;
    const started = performance.now();
    const [act, health] = await Promise.all([
      hostileCall('redos-31', 31).then((res) => ({ res, ms: performance.now() - started })),
      gw.http.get('/health').then((res) => ({ res, ms: performance.now() - started })),
    ]);
    expect(act.res.status).toBe(200);
    expect(JSON.stringify(act.res.body.results)).toContain('must match pattern');
    expect(health.res.status).toBe(200);
    // Milliseconds when the pattern runs in linear time, up to a few seconds on a loaded CI machine; backtracking
    // through 31 characters takes a minute or more (2^31 steps), and through a million characters for ever.
    expect(act.ms).toBeLessThan(10_000);
    expect(health.ms).toBeLessThan(10_000);
    const long = performance.now();
    expect((await hostileCall('redos-long', 1_000_000)).status).toBe(200);
    expect(performance.now() - long).toBeLessThan(30_000);
    expect(remote.requests).toHaveLength(sentBefore);
  });
});
