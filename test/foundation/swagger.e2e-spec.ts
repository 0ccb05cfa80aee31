import { agentWithTool, createKey, gatewayForSuite, openSession } from '@test/support/gateway-test-app';

/** Every endpoint of the contract (shared/docs/api-contract.md), as OpenAPI paths. */
const CONTRACT: Array<[string, string]> = [
  ['get', '/health'],
  ['post', '/api/v1/admin/api-keys'],
  ['get', '/api/v1/admin/api-keys'],
  ['delete', '/api/v1/admin/api-keys/{id}'],
  ['post', '/api/v1/admin/tools'],
  ['get', '/api/v1/admin/tools'],
  ['get', '/api/v1/admin/tools/{id}'],
  ['patch', '/api/v1/admin/tools/{id}'],
  ['delete', '/api/v1/admin/tools/{id}'],
  ['post', '/api/v1/admin/agents'],
  ['get', '/api/v1/admin/agents/{id}'],
  ['patch', '/api/v1/admin/agents/{id}'],
  ['delete', '/api/v1/admin/agents/{id}'],
  ['put', '/api/v1/admin/agents/{id}/tools'],
  ['post', '/api/v1/admin/agents/{id}/tools'],
  ['delete', '/api/v1/admin/agents/{id}/tools/{toolId}'],
  ['put', '/api/v1/admin/tenants/{tenantId}/capabilities'],
  ['post', '/api/v1/agents/{agentId}/tool-specs'],
  ['post', '/api/v1/sessions'],
  ['get', '/api/v1/sessions/{id}'],
  ['post', '/api/v1/sessions/{id}/act'],
  ['post', '/api/v1/sessions/{id}/resume'],
  ['get', '/api/v1/sessions/{id}/tool-results/{toolCallId}'],
  ['post', '/api/v1/tools/{name}/execute'],
  ['post', '/api/v1/admin/risk/evaluate'],
  ['get', '/api/v1/admin/hitl'],
  ['get', '/api/v1/admin/tool-calls'],
  ['get', '/api/v1/admin/sessions/{id}/journal'],
  ['get', '/api/v1/admin/feign/tools'],
  ['post', '/api/v1/admin/mcp-services'],
  ['post', '/api/v1/admin/mcp-services/{id}/sync'],
  ['get', '/api/v1/admin/mcp-services/{id}'],
];

describe('Swagger at /docs', () => {
  const suite = gatewayForSuite('sqlite');

  it('serves the UI and describes every endpoint of the contract with its body and its errors', async () => {
    await suite.gw.http.get('/docs').expect(200);
    const doc = (await suite.gw.http.get('/docs-json').expect(200)).body as {
      paths: Record<string, Record<string, any>>;
      components: { schemas: Record<string, unknown> };
    };
    for (const [method, path] of CONTRACT) {
      const op = doc.paths[path]?.[method];
      expect({ endpoint: `${method.toUpperCase()} ${path}`, documented: Boolean(op) }).toEqual({
        endpoint: `${method.toUpperCase()} ${path}`,
        documented: true,
      });
      if (path === '/health') continue;
      // 429: RATE_LIMIT_PER_MINUTE and AUTH_FAILURES_PER_MINUTE, when set, may refuse any guarded request.
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403', '429']));
      const success = Object.keys(op.responses).find((s) => s.startsWith('2'));
      expect(success).toBeDefined();
      if (['post', 'put', 'patch'].includes(method) && !path.endsWith('/sync')) {
        const ref = op.requestBody?.content?.['application/json']?.schema?.$ref as string | undefined;
        expect({ endpoint: `${method} ${path}`, body: ref?.startsWith('#/components/schemas/') }).toEqual({
          endpoint: `${method} ${path}`,
          body: true,
        });
      }
    }
    expect(doc.components.schemas.ErrorResponseDto).toBeDefined();
  });

  it('gives every operation of every route a summary', async () => {
    const doc = (await suite.gw.http.get('/docs-json').expect(200)).body as {
      paths: Record<string, Record<string, { summary?: string }>>;
    };
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ endpoint: `${method.toUpperCase()} ${path}`, summary: op.summary })),
    );
    expect(operations.length).toBeGreaterThan(80);
    expect(operations.filter((o) => !o.summary?.trim()).map((o) => o.endpoint)).toEqual([]);
  });

  it('documents the error statuses these routes return, and not those they cannot', async () => {
    const { gw } = suite;
    const doc = (await gw.http.get('/docs-json').expect(200)).body as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const statusesOf = (method: string, path: string) => Object.keys(doc.paths[path][method].responses);
    // An agent naming a model provider (or sub-agent, or skill) the tenant does not have is a 404.
    await gw.http
      .post('/api/v1/admin/agents')
      .set(gw.admin)
      .send({ name: 'swagger-404', tenantId: 'acme', modelProviderId: 'no-such-provider' })
      .expect(404);
    expect(statusesOf('post', '/api/v1/admin/agents')).toContain('404');
    // The tenantId path parameter is validated.
    await gw.http.get('/api/v1/admin/tenants/not!valid/capabilities').set(gw.admin).expect(400);
    expect(statusesOf('get', '/api/v1/admin/tenants/{tenantId}/capabilities')).toContain('400');
    // Retiring a tool twice answers it as it is: DELETE has no conflict to report.
    expect(statusesOf('delete', '/api/v1/admin/tools/{id}')).not.toContain('409');
    // Both roles may read artifacts: no key is refused there for its role; only admins delete them.
    const runtime = await createKey(gw, 'acme');
    await gw.http.get('/api/v1/artifacts/no-such-artifact').set(runtime).expect(404);
    await gw.http.get('/api/v1/artifacts/no-such-artifact/content').set(gw.admin).expect(404);
    expect(statusesOf('get', '/api/v1/artifacts/{id}')).not.toContain('403');
    expect(statusesOf('get', '/api/v1/artifacts/{id}/content')).not.toContain('403');
    await gw.http.delete('/api/v1/artifacts/no-such-artifact').set(runtime).expect(403);
    expect(statusesOf('delete', '/api/v1/artifacts/{id}')).toContain('403');
    // An upload that is not raw bytes is refused as such.
    expect(statusesOf('put', '/api/v1/sessions/{id}/files/content')).toEqual(expect.arrayContaining(['413', '415']));
  });

  it('marks nullable every field a CHECKPOINT_PAUSE request answers with null (it names no tool)', async () => {
    const { gw } = suite;
    const runtime = await createKey(gw, 'acme');
    const { agentId } = await agentWithTool(gw, 'acme', {}, { maxIterations: 1 });
    const sessionId = await openSession(gw, runtime, agentId);
    const act = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 2, toolCalls: [{ id: 'c1', name: 'READ_TOOL_RESULT', arguments: { toolCallId: 'x' } }] })
      .expect(200);
    expect(act.body.hitlRequest.requestType).toBe('CHECKPOINT_PAUSE');
    const queue = await gw.http.get('/api/v1/admin/hitl?status=PENDING').set(gw.admin).expect(200);
    const doc = (await gw.http.get('/docs-json').expect(200)).body as {
      components: { schemas: Record<string, { properties: Record<string, { nullable?: boolean }> }> };
    };
    for (const [dto, answer] of [
      ['HitlRequestDto', act.body.hitlRequest],
      ['HitlQueueItemDto', queue.body.items[0]],
    ] as Array<[string, Record<string, unknown>]>) {
      const props = doc.components.schemas[dto].properties;
      const nullInAnswer = Object.keys(props).filter((p) => answer[p] === null);
      expect(nullInAnswer).toEqual(expect.arrayContaining(['toolName', 'toolCallId', 'toolParams']));
      expect({ dto, notNullable: nullInAnswer.filter((p) => !props[p].nullable) }).toEqual({ dto, notNullable: [] });
    }
  });
});
