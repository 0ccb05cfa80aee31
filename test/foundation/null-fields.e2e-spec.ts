import { describeEachDialect } from '@test/support/test-database';
import { createKey, gatewayForSuite, sessionWithTool, toolBody } from '@test/support/gateway-test-app';

/**
 * A field that may be left out is not thereby nullable: `null` for a field that has no "cleared" meaning is a 400
 * naming it (it used to reach a NOT NULL column or the service's logic and answer 500 INTERNAL). Fields whose
 * contract gives null a meaning (an agent's description, a tool's headers, a provider's apiKey) still clear.
 */
describeEachDialect('null in admin bodies', (dialect) => {
  const suite = gatewayForSuite(dialect);
  const fieldsOf = (body: { error: { details: { fields: { field: string }[] } } }) =>
    body.error.details.fields.map((f) => f.field);

  it('PATCH /admin/agents/{id} refuses null for fields that cannot be cleared, and changes nothing', async () => {
    const { gw } = suite;
    const agent = (
      await gw.http
        .post('/api/v1/admin/agents')
        .set(gw.admin)
        .send({ name: 'nulls-agent', tenantId: 'acme' })
        .expect(201)
    ).body;
    for (const field of ['name', 'webSearchMode', 'sideEffectPolicy', 'hitlReviewer', 'maxIterations', 'skillIds']) {
      const res = await gw.http
        .patch(`/api/v1/admin/agents/${agent.id}`)
        .set(gw.admin)
        .send({ [field]: null });
      expect([field, res.status, res.body.error?.code]).toEqual([field, 400, 'VALIDATION_FAILED']);
      expect(fieldsOf(res.body)).toEqual([field]);
    }
    const got = await gw.http.get(`/api/v1/admin/agents/${agent.id}`).set(gw.admin).expect(200);
    expect(got.body).toEqual(agent);
    // null keeps its meaning where the agent has one: no description.
    const cleared = await gw.http
      .patch(`/api/v1/admin/agents/${agent.id}`)
      .set(gw.admin)
      .send({ description: null, systemPrompt: null })
      .expect(200);
    expect(cleared.body).toMatchObject({ description: null, systemPrompt: null });
  });

  it('POST /admin/agents refuses skillIds: null with a 400', async () => {
    const { gw } = suite;
    const res = await gw.http
      .post('/api/v1/admin/agents')
      .set(gw.admin)
      .send({ name: 'nulls-agent-2', tenantId: 'acme', skillIds: null })
      .expect(400);
    expect(fieldsOf(res.body)).toEqual(['skillIds']);
  });

  it('PATCH /admin/tools/{id} refuses null for fields that cannot be cleared, and changes nothing', async () => {
    const { gw } = suite;
    const tool = (
      await gw.http
        .post('/api/v1/admin/tools')
        .set(gw.admin)
        .send(toolBody({ tenantId: 'acme' }))
        .expect(201)
    ).body;
    const fields = [
      'name',
      'description',
      'parameters',
      'serviceType',
      'endpoint',
      'permissionTags',
      'sideEffect',
      'requires',
      'enabled',
      'status',
    ];
    for (const field of fields) {
      const res = await gw.http
        .patch(`/api/v1/admin/tools/${tool.id}`)
        .set(gw.admin)
        .send({ [field]: null });
      expect([field, res.status, res.body.error?.code]).toEqual([field, 400, 'VALIDATION_FAILED']);
      expect(fieldsOf(res.body)).toEqual([field]);
      if (['requires', 'enabled', 'status'].includes(field))
        expect(res.body.error.details.fields[0].problems).toContain(
          `${field} may be left out but not null; leave it out, or send a value`,
        );
    }
    const got = await gw.http.get(`/api/v1/admin/tools/${tool.id}`).set(gw.admin).expect(200);
    expect(got.body).toMatchObject({ version: tool.version, status: 'ACTIVE', enabled: true, name: tool.name });
    const cleared = await gw.http
      .patch(`/api/v1/admin/tools/${tool.id}`)
      .set(gw.admin)
      .send({ hitl: null })
      .expect(200);
    expect(cleared.body.version).toBe(tool.version + 1);
  });

  it('tags: null means no tags on PATCH /admin/tools/{id} as on create (it reached the NOT NULL column: 500)', async () => {
    const { gw } = suite;
    const created = await gw.http
      .post('/api/v1/admin/tools')
      .set(gw.admin)
      .send(toolBody({ tenantId: 'acme', tags: null }))
      .expect(201);
    expect(created.body.tags).toEqual([]);
    const tagged = (
      await gw.http
        .post('/api/v1/admin/tools')
        .set(gw.admin)
        .send(toolBody({ tenantId: 'acme', tags: ['orders'] }))
        .expect(201)
    ).body;
    const patched = await gw.http.patch(`/api/v1/admin/tools/${tagged.id}`).set(gw.admin).send({ tags: null });
    expect({ status: patched.status, tags: patched.body.tags }).toEqual({ status: 200, tags: [] });
    const got = await gw.http.get(`/api/v1/admin/tools/${tagged.id}`).set(gw.admin).expect(200);
    expect(got.body).toMatchObject({ tags: [], version: tagged.version + 1 });
  });

  it('POST /sessions/{id}/resume refuses decision: null and toolCallId: null (null approved the call, as if left out)', async () => {
    const { gw } = suite;
    const runtime = await createKey(gw, 'acme', 'runtime');
    const { sessionId } = await sessionWithTool(gw, runtime, 'acme', {
      name: 'nulls_resume',
      sideEffect: 'HIGH_RISK',
      hitl: { approvalText: 'Sure?' },
    });
    const acted = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'c1', name: 'nulls_resume', arguments: { q: 'x' } }] })
      .expect(200);
    expect(acted.body.status).toBe('INTERRUPTED');
    for (const field of ['decision', 'toolCallId']) {
      const res = await gw.http
        .post(`/api/v1/sessions/${sessionId}/resume`)
        .set(runtime)
        .send({ clientMessageId: `null-${field}`, [field]: null });
      expect([field, res.status, res.body.error?.code]).toEqual([field, 400, 'VALIDATION_FAILED']);
      expect(fieldsOf(res.body)).toEqual([field]);
    }
    const session = await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200);
    expect(session.body).toMatchObject({ status: 'INTERRUPTED', hitlPending: true });
  });

  it('PATCH /admin/model-providers/{id} refuses null for fields that cannot be cleared', async () => {
    const { gw } = suite;
    const provider = (
      await gw.http
        .post('/api/v1/admin/model-providers')
        .set(gw.admin)
        .send({
          name: 'nulls-provider',
          tenantId: 'acme',
          kind: 'OPENAI_COMPATIBLE',
          baseUrl: 'https://api.example.com/v1',
          apiKey: '${secret:LLM_KEY}',
          model: 'm',
        })
        .expect(201)
    ).body;
    for (const field of ['name', 'kind', 'baseUrl', 'model']) {
      const res = await gw.http
        .patch(`/api/v1/admin/model-providers/${provider.id}`)
        .set(gw.admin)
        .send({ [field]: null });
      expect([field, res.status, res.body.error?.code]).toEqual([field, 400, 'VALIDATION_FAILED']);
      expect(fieldsOf(res.body)).toEqual([field]);
    }
    const got = await gw.http.get(`/api/v1/admin/model-providers/${provider.id}`).set(gw.admin).expect(200);
    expect(got.body).toMatchObject({ version: provider.version, name: 'nulls-provider', model: 'm' });
  });
});
