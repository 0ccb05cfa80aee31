import { createKey, gatewayForSuite, providerBody, toolBody } from '@test/support/gateway-test-app';

/**
 * A field documented as an object (a tool's `hitl` and `result`, a model provider's `options`, a session's `task`)
 * refuses an array with a 400 naming the field. class-validator's @ValidateNested validates an array item by item, so
 * `hitl: [{}]` passed and was stored as `{"0":{}}` (the GET showed it so), and `task: []` made a session whose task
 * was `{}`: no description for the skill chooser, though the contract requires one.
 */
describe('hostile input: an array where an object is expected', () => {
  const suite = gatewayForSuite('sqlite', { TOOL_SECRETS: 'MODEL_KEY=sk-platform' });
  const fieldsOf = (res: { body: { error: { code: string; details: { fields: Array<{ field: string }> } } } }) => {
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    return res.body.error.details.fields.map((f) => f.field);
  };

  it.each([
    ['hitl', [{}]],
    ['hitl', []],
    ['result', []],
    ['result', [{ maxInlineChars: 500 }]],
  ])('refuses a tool whose %s is %j, on create and on PATCH; nothing changes', async (field, value) => {
    const { gw } = suite;
    const created = await gw.http
      .post('/api/v1/admin/tools')
      .set(gw.admin)
      .send(toolBody({ tenantId: 'acme', sideEffect: 'HIGH_RISK', [field]: value }));
    expect(created.status).toBe(400);
    expect(fieldsOf(created)).toContain(field);
    expect(created.body.error.message).toContain(`${field} must be an object`);
    const tool = (
      await gw.http
        .post('/api/v1/admin/tools')
        .set(gw.admin)
        .send(toolBody({ tenantId: 'acme' }))
        .expect(201)
    ).body;
    const patched = await gw.http
      .patch(`/api/v1/admin/tools/${tool.id}`)
      .set(gw.admin)
      .send({ [field]: value });
    expect(patched.status).toBe(400);
    expect(fieldsOf(patched)).toContain(field);
    const got = await gw.http.get(`/api/v1/admin/tools/${tool.id}`).set(gw.admin).expect(200);
    expect({ version: got.body.version, [field]: got.body[field] ?? null }).toEqual({
      version: tool.version,
      [field]: null,
    });
  });

  it('refuses a model provider whose options are an array, on create and on PATCH', async () => {
    const { gw } = suite;
    for (const options of [[], [{ temperature: 1 }]]) {
      const created = await gw.http.post('/api/v1/admin/model-providers').set(gw.admin).send(providerBody({ options }));
      expect(created.status).toBe(400);
      expect(fieldsOf(created)).toContain('options');
      const made = (await gw.http.post('/api/v1/admin/model-providers').set(gw.admin).send(providerBody()).expect(201))
        .body;
      const patched = await gw.http.patch(`/api/v1/admin/model-providers/${made.id}`).set(gw.admin).send({ options });
      expect(patched.status).toBe(400);
      expect(fieldsOf(patched)).toContain('options');
    }
  });

  it('refuses a session whose task is an array', async () => {
    const { gw } = suite;
    const runtime = await createKey(gw, 'acme', 'runtime');
    const agent = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'tasked', tenantId: 'acme' }).expect(201)
    ).body;
    for (const task of [[], [{ description: 'Summarise the report' }]]) {
      const res = await gw.http
        .post('/api/v1/sessions')
        .set(runtime)
        .send({ agentId: agent.id, userId: 'u1', permissions: [], task });
      expect(res.status).toBe(400);
      expect(fieldsOf(res)).toContain('task');
      expect(res.body.error.message).toContain('task must be an object');
    }
  });
});
