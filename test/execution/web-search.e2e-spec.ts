import { createTestDatabaseUrl, TestDatabase } from '@test/support/test-database';
import { createKey, startTestGateway, TestGateway } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';

describe('platform web search through act', () => {
  let db: TestDatabase;
  let gw: TestGateway;
  let provider: RecordingHttpServer;
  let runtime: { Authorization: string };
  let sessionId: string;

  beforeAll(async () => {
    provider = await new RecordingHttpServer().start();
    provider.handler = (req, res) => {
      const q = new URL(req.url, 'http://x').searchParams.get('q');
      res.setHeader('content-type', 'application/json');
      if (q === 'cut') {
        // Headers and the start of the body, then the connection drops.
        res.write('{"results": [');
        return void setTimeout(() => res.socket?.destroy(), 20);
      }
      if (q === 'denied' || q === 'busy') {
        res.statusCode = q === 'busy' ? 503 : 403;
        return void res.end('{"error":"forbidden"}');
      }
      if (q === 'flood') {
        // 11 MiB in chunks, no Content-Length: counted as it streams.
        const chunk = Buffer.alloc(1024 * 1024, 'a');
        for (let i = 0; i < 11; i++) res.write(chunk);
        return void res.end();
      }
      if (q === 'many') {
        // A provider that ignores `count`, with one snippet far longer than any a model needs.
        const results = Array.from({ length: 200 }, (_, i) => ({
          title: `Result ${i}`,
          url: `https://example.com/${i}`,
          snippet: i === 0 ? 'x'.repeat(200_000) : `snippet ${i}`,
        }));
        return void res.end(JSON.stringify({ results }));
      }
      if (q === 'echo') {
        // A provider that echoes the credentials it was sent, once across the title's cut.
        const key = (req.headers.authorization ?? '').replace(/^Bearer /, '');
        const results = [
          { title: `${'t'.repeat(490)}${key}`, url: `https://example.com/?key=${key}`, snippet: `Bad key ${key}` },
        ];
        return void res.end(JSON.stringify({ results }));
      }
      res.end(JSON.stringify({ results: [{ title: `About ${q}`, url: 'https://example.com/a', snippet: 'first' }] }));
    };
    db = await createTestDatabaseUrl('sqlite');
    gw = await startTestGateway(db.url, {
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      WEB_SEARCH_URL: provider.url('/search'),
      WEB_SEARCH_API_KEY: 'search-secret',
    });
    runtime = await createKey(gw, 'acme', 'runtime');
    await gw.http.put('/api/v1/admin/tenants/acme/capabilities').set(gw.admin).send({ webSearch: true }).expect(200);
    const agentId = (
      await gw.http
        .post('/api/v1/admin/agents')
        .set(gw.admin)
        .send({ name: 'searcher', tenantId: 'acme', webSearchMode: 'AUTO' })
        .expect(201)
    ).body.id;
    sessionId = (
      await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u', permissions: [] }).expect(201)
    ).body.id;
  });
  afterAll(async () => {
    await gw?.close();
    await provider?.stop();
    await db?.drop();
  });

  it('searches through the configured provider inside a session', async () => {
    const res = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: 's1', name: 'web_search', arguments: { query: 'nestjs', count: 3 } }] })
      .expect(200);
    expect(res.body.results[0]).toMatchObject({ status: 'COMPLETED', isError: false });
    expect(res.body.results[0].content).toContain('About nestjs');
    const seen = provider.requests[provider.requests.length - 1];
    expect(new URL(seen.url, 'http://x').searchParams.get('count')).toBe('3');
    expect(seen.headers.authorization).toBe('Bearer search-secret');
  });

  it('answers at most `count` results, each of bounded length, whatever the provider sends', async () => {
    const res = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 2, toolCalls: [{ id: 's-many', name: 'web_search', arguments: { query: 'many', count: 3 } }] })
      .expect(200);
    expect(res.body.results[0]).toMatchObject({ status: 'COMPLETED', isError: false });
    const content: string = res.body.results[0].content;
    expect(content).toContain('Result 2');
    expect(content).not.toContain('Result 3');
    expect(content.length).toBeLessThan(5_000);
  });

  it('hides WEB_SEARCH_API_KEY from what the model and the tool log read when the provider echoes it', async () => {
    const res = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 2, toolCalls: [{ id: 's-echo', name: 'web_search', arguments: { query: 'echo' } }] })
      .expect(200);
    expect(res.body.results[0]).toMatchObject({ status: 'COMPLETED', isError: false });
    const content: string = res.body.results[0].content;
    expect(content).toContain('Bad key ***');
    expect(content).toContain('https://example.com/?key=***');
    expect(content).not.toContain('search-sec');
    const log = await gw.http.get(`/api/v1/admin/tool-calls?sessionId=${sessionId}`).set(gw.admin).expect(200);
    expect(JSON.stringify(log.body)).toContain('s-echo');
    expect(JSON.stringify(log.body)).not.toContain('search-sec');
  });

  it("fails a provider's answer over the tool response bound without holding it", async () => {
    const res = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 2, toolCalls: [{ id: 's-flood', name: 'web_search', arguments: { query: 'flood' } }] })
      .expect(200);
    expect(res.body.results[0]).toMatchObject({ status: 'FAILED', errorClass: 'RESPONSE_TOO_LARGE' });
    expect(res.body.results[0].content).toContain('the search provider answered more than 10485760 bytes');
  });

  it("fails a provider's refusal with what the model can do: go on without web search", async () => {
    const res = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 2, toolCalls: [{ id: 's-denied', name: 'web_search', arguments: { query: 'denied' } }] })
      .expect(200);
    expect(res.body.results[0]).toMatchObject({ status: 'FAILED', errorClass: 'HTTP_CLIENT_ERROR' });
    expect(res.body.results[0].content).toContain(
      'the search provider answered HTTP 403, refusing the search; go on without it (the platform operator should check WEB_SEARCH_URL and WEB_SEARCH_API_KEY)',
    );
    const busy = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 2, toolCalls: [{ id: 's-busy', name: 'web_search', arguments: { query: 'busy' } }] })
      .expect(200);
    expect(busy.body.results[0]).toMatchObject({ status: 'FAILED', errorClass: 'HTTP_RETRYABLE' });
    expect(busy.body.results[0].content).toContain(
      'the search provider answered HTTP 503 (busy or down); search again later, or go on without it',
    );
  });

  it('reports a provider that drops the connection mid-answer as a lost connection, and retries the search', async () => {
    const before = provider.requests.length;
    const res = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 2, toolCalls: [{ id: 's-cut', name: 'web_search', arguments: { query: 'cut' } }] })
      .expect(200);
    expect(res.body.results[0]).toMatchObject({ status: 'FAILED', errorClass: 'CONNECTION_LOST', attempts: 3 });
    expect(provider.requests.length - before).toBe(3);
  });

  it('refuses the call at call time once the tenant capability is switched off', async () => {
    await gw.http.put('/api/v1/admin/tenants/acme/capabilities').set(gw.admin).send({ webSearch: false }).expect(200);
    const before = provider.requests.length;
    const res = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 2, toolCalls: [{ id: 's2', name: 'web_search', arguments: { query: 'x' } }] })
      .expect(200);
    expect(res.body.results[0]).toMatchObject({ status: 'FAILED', isError: true });
    expect(res.body.results[0].content).toContain('POLICY');
    expect(provider.requests.length).toBe(before);
  });
});

describe('platform web search with its key in WEB_SEARCH_URL', () => {
  let db: TestDatabase;
  let gw: TestGateway;
  let provider: RecordingHttpServer;

  beforeAll(async () => {
    provider = await new RecordingHttpServer().start();
    // A provider that echoes the request it was sent (its URL, with the key in the query).
    provider.handler = (req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ results: [{ title: 'Echo', url: `http://provider${req.url}`, snippet: req.url }] }));
    };
    db = await createTestDatabaseUrl('sqlite');
    gw = await startTestGateway(db.url, {
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      WEB_SEARCH_URL: provider.url('/search?key=url-secret-4711&engine=web'),
    });
  });
  afterAll(async () => {
    await gw?.close();
    await provider?.stop();
    await db?.drop();
  });

  it('hides the key from what the model reads when the provider echoes its URL', async () => {
    const runtime = await createKey(gw, 'acme', 'runtime');
    await gw.http.put('/api/v1/admin/tenants/acme/capabilities').set(gw.admin).send({ webSearch: true }).expect(200);
    const agentId = (
      await gw.http
        .post('/api/v1/admin/agents')
        .set(gw.admin)
        .send({ name: 'searcher', tenantId: 'acme', webSearchMode: 'AUTO' })
        .expect(201)
    ).body.id;
    const sessionId = (
      await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u', permissions: [] }).expect(201)
    ).body.id;
    const res = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'k1', name: 'web_search', arguments: { query: 'nestjs' } }] })
      .expect(200);
    expect(res.body.results[0]).toMatchObject({ status: 'COMPLETED', isError: false });
    expect(provider.requests[0].url).toContain('key=url-secret-4711');
    const content: string = res.body.results[0].content;
    expect(content).toContain('key=***&engine=web');
    expect(content).not.toContain('url-secret-4711');
  });
});
