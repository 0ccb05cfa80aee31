import { describeEachDialect } from '@test/support/test-database';
import { createKey, gatewayForSuite, type TestGateway } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import { createKnowledgeBase } from './support/knowledge-fixtures';

const KB = '/api/v1/admin/knowledge-bases';

describeEachDialect('HTTP knowledge bases', (dialect) => {
  const retrieval = new RecordingHttpServer();
  // A search budget of its own (default 10 s), so the stalled service's test waits 1.5 s, not 10.
  const suite = gatewayForSuite(dialect, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', KNOWLEDGE_SEARCH_TIMEOUT_MS: '1500' });
  const blocked = gatewayForSuite(dialect);
  let answer: (body: { query: string; topK: number }) => { status: number; body: string };
  /** An HTTP knowledge base of tenant acme that asks the retrieval service at `path`; its id. */
  const acmeHttpBase = (gw: TestGateway, name: string, path: string) =>
    createKnowledgeBase(gw, { name, tenantId: 'acme', kind: 'HTTP', url: retrieval.url(path) });

  beforeAll(async () => {
    await retrieval.start();
    retrieval.handler = (req, res) => {
      if (req.url === '/stall') {
        // Headers and the start of an answer, then nothing more (the connection stays open).
        res.setHeader('content-type', 'application/json');
        res.write('{"results": [');
        return void setTimeout(() => res.destroy(), 20_000).unref();
      }
      const out = answer(JSON.parse(req.body) as { query: string; topK: number });
      res.statusCode = out.status;
      res.setHeader('content-type', 'application/json');
      res.end(out.body);
    };
  });
  afterAll(() => retrieval.stop());
  beforeEach(() => {
    answer = ({ query, topK }) => ({
      status: 200,
      body: JSON.stringify({
        results: [
          { title: 'Low', content: `weak match for ${query}`, score: 0.2 },
          { documentId: 'doc-9', title: 'High', content: `strong match for ${query} (topK ${topK})`, score: 0.9 },
        ],
      }),
    });
  });

  it('POSTs {query, topK} to the service and answers its results, best first', async () => {
    const { gw } = suite;
    const kb = await acmeHttpBase(gw, 'vectors', '/search');
    const before = retrieval.requests.length;
    const res = await gw.http
      .post(`${KB}/${kb}/search`)
      .set(gw.admin)
      .send({ query: 'rotate keys', topK: 2 })
      .expect(200);
    expect(res.body.results).toEqual([
      {
        documentId: 'doc-9',
        title: 'High',
        content: 'strong match for rotate keys (topK 2)',
        score: 0.9,
        heading: null,
      },
      { documentId: null, title: 'Low', content: 'weak match for rotate keys', score: 0.2, heading: null },
    ]);
    const seen = retrieval.requests[before];
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/search');
    expect(JSON.parse(seen.body)).toEqual({ query: 'rotate keys', topK: 2 });
    expect(seen.headers['x-tenant-id']).toBe('acme');
    expect(seen.headers.authorization).toBeUndefined();
  });

  it('answers RAG_SEARCH through act from the service', async () => {
    const { gw } = suite;
    const runtime = await createKey(gw, 'acme', 'runtime');
    const kb = await acmeHttpBase(gw, 'remote', '/rag');
    const agentId = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'http-rag', tenantId: 'acme' })
    ).body.id;
    const tools = await gw.http.get('/api/v1/admin/tools?source=BUILTIN&pageSize=500').set(gw.admin);
    const rag = tools.body.items.find((t: { name: string }) => t.name === 'RAG_SEARCH');
    await gw.http
      .put(`/api/v1/admin/agents/${agentId}/tools`)
      .set(gw.admin)
      .send({ toolIds: [rag.id] })
      .expect(200);
    await gw.http
      .put(`/api/v1/admin/agents/${agentId}/knowledge-bases`)
      .set(gw.admin)
      .send({ knowledgeBaseIds: [kb] })
      .expect(200);
    const session = (
      await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u', permissions: [] }).expect(201)
    ).body.id;

    const res = await gw.http
      .post(`/api/v1/sessions/${session}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'h1', name: 'RAG_SEARCH', arguments: { query: 'sso', topK: 1 } }] })
      .expect(200);
    expect(res.body.results[0]).toMatchObject({ status: 'COMPLETED', isError: false });
    expect(JSON.parse(res.body.results[0].content)).toEqual({
      results: [
        {
          documentId: 'doc-9',
          title: 'High',
          content: 'strong match for sso (topK 1)',
          score: 0.9,
          heading: null,
          knowledgeBase: 'remote',
        },
      ],
    });
  });

  it("removes control and bidi characters from the service's passages, as from an INTERNAL base's documents", async () => {
    const { gw } = suite;
    const kb = await acmeHttpBase(gw, 'unsafe-text', '/search');
    answer = () => ({
      status: 200,
      body: JSON.stringify({
        results: [
          {
            title: 'Refunds\u202Egnp.exe',
            heading: 'Policy\u0007 > Time',
            content: 'Refunds take\u001b[2J five days.\n\tAsk\u2066 the desk.',
            score: 1,
          },
        ],
      }),
    });
    const res = await gw.http.post(`${KB}/${kb}/search`).set(gw.admin).send({ query: 'refund' }).expect(200);
    expect(res.body.results).toEqual([
      {
        documentId: null,
        title: 'Refundsgnp.exe',
        heading: 'Policy > Time',
        content: 'Refunds take[2J five days.\n\tAsk the desk.',
        score: 1,
      },
    ]);
  });

  it("bounds the service's documentId and never cuts a character outside the BMP in two", async () => {
    const { gw } = suite;
    const kb = await acmeHttpBase(gw, 'long-fields', '/search');
    answer = () => ({
      status: 200,
      body: JSON.stringify({
        results: [
          {
            documentId: `doc\u202E${'d'.repeat(100_000)}`,
            title: `${'t'.repeat(511)}😀`,
            content: `${'c'.repeat(7_999)}😀 more`,
            score: 1,
          },
        ],
      }),
    });
    const res = await gw.http.post(`${KB}/${kb}/search`).set(gw.admin).send({ query: 'q' }).expect(200);
    const [hit] = res.body.results as Array<{ documentId: string; title: string; content: string }>;
    expect(hit.documentId).toBe(`doc${'d'.repeat(509)}`);
    expect(hit.title).toBe('t'.repeat(511));
    expect(hit.content).toBe('c'.repeat(7_999));
  });

  it('turns a malformed answer or an error status into 502 KNOWLEDGE_BASE_UNREACHABLE', async () => {
    const { gw } = suite;
    const kb = await acmeHttpBase(gw, 'flaky', '/x');
    answer = () => ({ status: 200, body: '{"hits": []}' });
    const malformed = await gw.http.post(`${KB}/${kb}/search`).set(gw.admin).send({ query: 'q' });
    expect(malformed.status).toBe(502);
    expect(malformed.body.error).toMatchObject({ code: 'KNOWLEDGE_BASE_UNREACHABLE' });
    expect(malformed.body.error.message).toContain('results array');
    answer = () => ({ status: 404, body: '{}' });
    const missing = await gw.http.post(`${KB}/${kb}/search`).set(gw.admin).send({ query: 'q' });
    expect(missing.status).toBe(502);
    expect(missing.body.error.message).toContain('HTTP 404');
  });

  it('turns a service that stalls mid-answer into 502 KNOWLEDGE_BASE_UNREACHABLE after the search timeout', async () => {
    const { gw } = suite;
    const kb = await acmeHttpBase(gw, 'stalled', '/stall');
    const started = Date.now();
    const res = await gw.http.post(`${KB}/${kb}/search`).set(gw.admin).send({ query: 'q' });
    expect(res.status).toBe(502);
    expect(res.body.error).toMatchObject({ code: 'KNOWLEDGE_BASE_UNREACHABLE' });
    expect(res.body.error.message).toContain(
      'did not finish its answer within 1500 ms (KNOWLEDGE_SEARCH_TIMEOUT_MS); search again later, or with a smaller topK. Check its url',
    );
    // Cut by KNOWLEDGE_SEARCH_TIMEOUT_MS, neither at once nor at the default 10 s.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    expect(Date.now() - started).toBeLessThan(9_000);
  });

  it('goes through the outbound guard: a loopback service is refused unless OUTBOUND_ALLOW_HOSTS lists it', async () => {
    const { gw } = blocked;
    const kb = await acmeHttpBase(gw, 'local', '/search');
    const before = retrieval.requests.length;
    const res = await gw.http.post(`${KB}/${kb}/search`).set(gw.admin).send({ query: 'q' });
    expect(res.status).toBe(502);
    expect(res.body.error.message).toContain('OUTBOUND_ALLOW_HOSTS');
    expect(res.body.error.message).not.toMatch(/\.\. /);
    expect(retrieval.requests.length).toBe(before);
  });
});
