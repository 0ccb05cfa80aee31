import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite, toolBody } from '@test/support/gateway-test-app';
import { skillMd, uploadJsonSkill } from '@test/support/skill-fixture';

describeEachDialect('agents, bindings and capabilities', (dialect) => {
  const suite = gatewayForSuite(dialect);
  const newTool = async (overrides: Record<string, unknown> = {}) =>
    (
      await suite.gw.http
        .post('/api/v1/admin/tools')
        .set(suite.gw.admin)
        .send(toolBody({ tenantId: 'acme', ...overrides }))
        .expect(201)
    ).body;
  const newAgent = async (overrides: Record<string, unknown> = {}) =>
    (
      await suite.gw.http
        .post('/api/v1/admin/agents')
        .set(suite.gw.admin)
        .send({ name: `agent_${Math.random().toString(36).slice(2)}`, tenantId: 'acme', ...overrides })
        .expect(201)
    ).body;

  it('creates an agent with defaults and reads it back', async () => {
    const agent = await newAgent({ description: 'helps' });
    expect(agent).toMatchObject({
      tenantId: 'acme',
      description: 'helps',
      webSearchMode: 'DISABLED',
      sideEffectPolicy: 'ALLOW',
      maxIterations: 20,
      toolIds: [],
      skillIds: [],
    });
    const got = await suite.gw.http.get(`/api/v1/admin/agents/${agent.id}`).set(suite.gw.admin).expect(200);
    expect(got.body).toEqual(agent);
  });

  it('refuses a duplicate agent name in a tenant with 409', async () => {
    await newAgent({ name: 'same' });
    const res = await suite.gw.http
      .post('/api/v1/admin/agents')
      .set(suite.gw.admin)
      .send({ name: 'same', tenantId: 'acme' })
      .expect(409);
    expect(res.body.error.code).toBe('AGENT_NAME_TAKEN');
    await newAgent({ name: 'same', tenantId: 'globex' });
  });

  it('validates agent bodies', async () => {
    const res = await suite.gw.http
      .post('/api/v1/admin/agents')
      .set(suite.gw.admin)
      .send({ name: 'x', tenantId: 'acme', webSearchMode: 'SOMETIMES', sideEffectPolicy: 'YOLO', maxIterations: 0 })
      .expect(400);
    expect(res.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual([
      'maxIterations',
      'sideEffectPolicy',
      'webSearchMode',
    ]);
    await suite.gw.http.post('/api/v1/admin/agents').set(suite.gw.admin).send({ name: 'x' }).expect(400);
    // skillIds take the rule of PUT .../skills (at most 100 ids of 1-36 characters) on create and PATCH alike.
    const agentId = (
      await suite.gw.http.post('/api/v1/admin/agents').set(suite.gw.admin).send({ name: 'ids', tenantId: 'acme' })
    ).body.id as string;
    for (const skillIds of [Array.from({ length: 101 }, (_, i) => `skill-${i}`), ['s'.repeat(37)], ['']]) {
      for (const [method, path, body] of [
        ['post', '/api/v1/admin/agents', { name: 'ids2', tenantId: 'acme', skillIds }],
        ['patch', `/api/v1/admin/agents/${agentId}`, { skillIds }],
        ['put', `/api/v1/admin/agents/${agentId}/skills`, { skillIds }],
      ] as const) {
        const refused = await suite.gw.http[method](path).set(suite.gw.admin).send(body).expect(400);
        expect(refused.body.error.details.fields.map((f: { field: string }) => f.field)).toEqual(['skillIds']);
      }
    }
  });

  it('patches and deletes agents', async () => {
    const agent = await newAgent();
    const patched = await suite.gw.http
      .patch(`/api/v1/admin/agents/${agent.id}`)
      .set(suite.gw.admin)
      .send({ webSearchMode: 'AUTO', maxIterations: 5 })
      .expect(200);
    expect(patched.body).toMatchObject({ webSearchMode: 'AUTO', maxIterations: 5 });
    await suite.gw.http
      .patch(`/api/v1/admin/agents/${agent.id}`)
      .set(suite.gw.admin)
      .send({ tenantId: 'globex' })
      .expect(400);
    await suite.gw.http.delete(`/api/v1/admin/agents/${agent.id}`).set(suite.gw.admin).expect(200);
    await suite.gw.http.get(`/api/v1/admin/agents/${agent.id}`).set(suite.gw.admin).expect(404);
  });

  it('keeps each id once in skillIds and subAgentIds on create and PATCH, as the PUT endpoints do', async () => {
    const skill = await uploadJsonSkill(suite.gw, suite.gw.admin, {
      tenantId: 'acme',
      skillContent: skillMd(`dup-${Math.random().toString(36).slice(2, 8)}`, 'A skill bound twice.'),
    });
    const helper = await newAgent();
    const created = await newAgent({ skillIds: [skill.id, skill.id], subAgentIds: [helper.id, helper.id] });
    expect({ skillIds: created.skillIds, subAgentIds: created.subAgentIds }).toEqual({
      skillIds: [skill.id],
      subAgentIds: [helper.id],
    });
    const patched = await suite.gw.http
      .patch(`/api/v1/admin/agents/${created.id}`)
      .set(suite.gw.admin)
      .send({ skillIds: [skill.id, skill.id], subAgentIds: [helper.id, helper.id] })
      .expect(200);
    const read = await suite.gw.http.get(`/api/v1/admin/agents/${created.id}`).set(suite.gw.admin).expect(200);
    for (const agent of [patched.body, read.body]) {
      expect({ skillIds: agent.skillIds, subAgentIds: agent.subAgentIds }).toEqual({
        skillIds: [skill.id],
        subAgentIds: [helper.id],
      });
    }
  });

  it('replaces, adds and removes bindings, each answering the agent', async () => {
    const [a, b, c] = [await newTool(), await newTool(), await newTool()];
    const agent = await newAgent();
    const put = await suite.gw.http
      .put(`/api/v1/admin/agents/${agent.id}/tools`)
      .set(suite.gw.admin)
      .send({ toolIds: [a.id, b.id, a.id] })
      .expect(200);
    expect(put.body.toolIds).toEqual([a.id, b.id]);
    const added = await suite.gw.http
      .post(`/api/v1/admin/agents/${agent.id}/tools`)
      .set(suite.gw.admin)
      .send({ toolId: c.id })
      .expect(200);
    expect(added.body.toolIds).toEqual([a.id, b.id, c.id]);
    const removed = await suite.gw.http
      .delete(`/api/v1/admin/agents/${agent.id}/tools/${b.id}`)
      .set(suite.gw.admin)
      .expect(200);
    expect(removed.body.toolIds).toEqual([a.id, c.id]);
    await suite.gw.http.delete(`/api/v1/admin/agents/${agent.id}/tools/${b.id}`).set(suite.gw.admin).expect(404);
    const replaced = await suite.gw.http
      .put(`/api/v1/admin/agents/${agent.id}/tools`)
      .set(suite.gw.admin)
      .send({ toolIds: [c.id] })
      .expect(200);
    expect(replaced.body.toolIds).toEqual([c.id]);
  });

  it('refuses to bind a retired tool with a 400 naming the field the body used', async () => {
    const tool = await newTool();
    const agent = await newAgent();
    await suite.gw.http.delete(`/api/v1/admin/tools/${tool.id}`).set(suite.gw.admin).expect(200);
    const added = await suite.gw.http
      .post(`/api/v1/admin/agents/${agent.id}/tools`)
      .set(suite.gw.admin)
      .send({ toolId: tool.id })
      .expect(400);
    expect(added.body.error.details.fields).toEqual([
      { field: 'toolId', problems: [expect.stringContaining('retired')] },
    ]);
    const replaced = await suite.gw.http
      .put(`/api/v1/admin/agents/${agent.id}/tools`)
      .set(suite.gw.admin)
      .send({ toolIds: [tool.id] })
      .expect(400);
    expect(replaced.body.error.details.fields).toEqual([
      { field: 'toolIds', problems: [expect.stringContaining('retired')] },
    ]);
  });

  it("refuses to bind another tenant's tool (404) and leaves the bindings unchanged", async () => {
    const mine = await newTool();
    const foreign = await newTool({ tenantId: 'globex' });
    const agent = await newAgent();
    await suite.gw.http
      .put(`/api/v1/admin/agents/${agent.id}/tools`)
      .set(suite.gw.admin)
      .send({ toolIds: [mine.id] })
      .expect(200);
    const res = await suite.gw.http
      .put(`/api/v1/admin/agents/${agent.id}/tools`)
      .set(suite.gw.admin)
      .send({ toolIds: [mine.id, foreign.id] })
      .expect(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    await suite.gw.http
      .post(`/api/v1/admin/agents/${agent.id}/tools`)
      .set(suite.gw.admin)
      .send({ toolId: foreign.id })
      .expect(404);
    await suite.gw.http
      .post(`/api/v1/admin/agents/${agent.id}/tools`)
      .set(suite.gw.admin)
      .send({ toolId: 'missing' })
      .expect(404);
    const got = await suite.gw.http.get(`/api/v1/admin/agents/${agent.id}`).set(suite.gw.admin).expect(200);
    expect(got.body.toolIds).toEqual([mine.id]);
  });

  it("binds platform-wide tools to any tenant's agent", async () => {
    const platform = (await suite.gw.http.post('/api/v1/admin/tools').set(suite.gw.admin).send(toolBody()).expect(201))
      .body;
    const agent = await newAgent();
    const res = await suite.gw.http
      .post(`/api/v1/admin/agents/${agent.id}/tools`)
      .set(suite.gw.admin)
      .send({ toolId: platform.id })
      .expect(200);
    expect(res.body.toolIds).toEqual([platform.id]);
  });

  it('sets the tenant capability policy (platform admin only) and validates it', async () => {
    const res = await suite.gw.http
      .put('/api/v1/admin/tenants/acme/capabilities')
      .set(suite.gw.admin)
      .send({ webSearch: true })
      .expect(200);
    expect(res.body).toMatchObject({ tenantId: 'acme', webSearch: true });
    await suite.gw.http
      .put('/api/v1/admin/tenants/acme/capabilities')
      .set(suite.gw.admin)
      .send({ webSearch: 'yes' })
      .expect(400);
    await suite.gw.http
      .put('/api/v1/admin/tenants/bad%20id/capabilities')
      .set(suite.gw.admin)
      .send({ webSearch: true })
      .expect(400);
    const got = await suite.gw.http.get('/api/v1/admin/tenants/acme/capabilities').set(suite.gw.admin).expect(200);
    expect(got.body.webSearch).toBe(true);
  });
});
