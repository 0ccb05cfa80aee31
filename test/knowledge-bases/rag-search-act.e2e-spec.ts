import { describeEachDialect } from '@test/support/test-database';
import { createKey, gatewayForSuite } from '@test/support/gateway-test-app';
import { addCorpus, createKnowledgeBase } from './support/knowledge-fixtures';

interface Decision {
  name: string;
  visible: boolean;
  layer: string;
  reason: string;
}

describeEachDialect('RAG_SEARCH through act', (dialect) => {
  const suite = gatewayForSuite(dialect);
  let runtime: { Authorization: string };
  let agentId: string;
  let sessionId: string;
  let handbook: string;
  let docIds: Map<string, string>;
  let iteration = 0;

  const specs = async (): Promise<Decision[]> =>
    (
      await suite.gw.http
        .post(`/api/v1/agents/${agentId}/tool-specs`)
        .set(runtime)
        .send({ userId: 'u1', permissions: [], explain: true })
        .expect(200)
    ).body.decisions as Decision[];

  const act = async (args: Record<string, unknown>) => {
    iteration++;
    const res = await suite.gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration, toolCalls: [{ id: `rag-${iteration}`, name: 'RAG_SEARCH', arguments: args }] })
      .expect(200);
    return res.body.results[0] as { status: string; content: string; isError: boolean };
  };

  beforeAll(async () => {
    const { gw } = suite;
    runtime = await createKey(gw, 'acme', 'runtime');
    agentId = (await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'rag', tenantId: 'acme' })).body
      .id;
    const tools = await gw.http.get('/api/v1/admin/tools?source=BUILTIN&pageSize=500').set(gw.admin).expect(200);
    const rag = tools.body.items.find((t: { name: string }) => t.name === 'RAG_SEARCH');
    expect(rag).toMatchObject({
      source: 'BUILTIN',
      tenantId: null,
      sideEffect: 'READ_ONLY',
      requires: ['KNOWLEDGE_BASE'],
    });
    await gw.http
      .put(`/api/v1/admin/agents/${agentId}/tools`)
      .set(gw.admin)
      .send({ toolIds: [rag.id] })
      .expect(200);
    sessionId = (
      await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u1', permissions: [] }).expect(201)
    ).body.id;
    handbook = await createKnowledgeBase(gw, { name: 'Handbook', tenantId: 'acme' });
    docIds = await addCorpus(gw, handbook);
  });

  it('is hidden at DEPENDENCIES while the agent has no knowledge base, and a call fails without searching', async () => {
    const decision = (await specs()).find((d) => d.name === 'RAG_SEARCH')!;
    expect(decision).toMatchObject({ visible: false, layer: 'DEPENDENCIES' });
    expect(decision.reason).toContain('knowledge-bases');
    const result = await act({ query: 'refund' });
    expect(result).toMatchObject({ status: 'FAILED', isError: true });
    expect(result.content).toContain('DEPENDENCIES');
  });

  it('searches the bound knowledge base once one is bound and answers the results JSON', async () => {
    const { gw } = suite;
    await gw.http
      .put(`/api/v1/admin/agents/${agentId}/knowledge-bases`)
      .set(gw.admin)
      .send({ knowledgeBaseIds: [handbook] })
      .expect(200);
    expect((await specs()).find((d) => d.name === 'RAG_SEARCH')).toMatchObject({ visible: true, layer: 'EMITTED' });

    const result = await act({ query: '信用卡退款多久到账', topK: 2 });
    expect(result).toMatchObject({ status: 'COMPLETED', isError: false });
    const body = JSON.parse(result.content) as { results: Array<Record<string, unknown>> };
    expect(body.results).toHaveLength(2);
    expect(body.results[0]).toMatchObject({
      documentId: docIds.get('退款政策'),
      title: '退款政策',
      knowledgeBase: 'Handbook',
      heading: '退款政策 > 到账时间',
    });
    expect(body.results[0].content).toContain('七个工作日');
    expect(typeof body.results[0].score).toBe('number');
  });

  it('searches only the named knowledge base, and names the bound ones when the name is unknown', async () => {
    const { gw } = suite;
    const faq = await createKnowledgeBase(gw, { name: 'faq', tenantId: 'acme' });
    await gw.http
      .post(`/api/v1/admin/knowledge-bases/${faq}/documents`)
      .set(gw.admin)
      .send({ title: 'Refund FAQ', content: 'A card refund is usually visible after a week.', mimeType: 'text/plain' })
      .expect(201);
    await gw.http
      .put(`/api/v1/admin/agents/${agentId}/knowledge-bases`)
      .set(gw.admin)
      .send({ knowledgeBaseIds: [handbook, faq] })
      .expect(200);

    const both = JSON.parse((await act({ query: 'card refund', topK: 10 })).content) as {
      results: Array<{ knowledgeBase: string; score: number }>;
    };
    expect(new Set(both.results.map((r) => r.knowledgeBase))).toEqual(new Set(['Handbook', 'faq']));
    for (let i = 1; i < both.results.length; i++)
      expect(both.results[i - 1].score).toBeGreaterThanOrEqual(both.results[i].score);

    const onlyFaq = JSON.parse((await act({ query: 'card refund', knowledgeBase: 'FAQ' })).content) as {
      results: Array<{ title: string; knowledgeBase: string }>;
    };
    expect(onlyFaq.results).toEqual([expect.objectContaining({ title: 'Refund FAQ', knowledgeBase: 'faq' })]);

    const unknown = await act({ query: 'card refund', knowledgeBase: 'nope' });
    expect(unknown).toMatchObject({ status: 'FAILED', isError: true });
    expect(unknown.content).toContain('use one of: faq, Handbook');
  });

  it("never searches another tenant's knowledge base, even one named like a bound one", async () => {
    const { gw } = suite;
    const foreign = await createKnowledgeBase(gw, { name: 'secrets', tenantId: 'other' });
    await gw.http
      .post(`/api/v1/admin/knowledge-bases/${foreign}/documents`)
      .set(gw.admin)
      .send({ title: 'Other tenant', content: 'The vault combination is 1234.', mimeType: 'text/plain' })
      .expect(201);
    const result = await act({ query: 'vault combination', knowledgeBase: 'secrets' });
    expect(result).toMatchObject({ status: 'FAILED', isError: true });
    const all = JSON.parse((await act({ query: 'vault combination' })).content) as { results: unknown[] };
    expect(all.results).toEqual([]);
  });
});
