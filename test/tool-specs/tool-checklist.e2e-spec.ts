import { describeEachDialect } from '@test/support/test-database';
import { createKey, gatewayForSuite, toolBody } from '@test/support/gateway-test-app';

type Item = { check: string; status: string; message: string };
const byCheck = (items: Item[]) => Object.fromEntries(items.map((i) => [i.check, i]));
const CHECKS = [
  'SCHEMA_VALID',
  'MODEL_OPENAI',
  'MODEL_OPENAI_STRICT',
  'MODEL_ANTHROPIC',
  'MODEL_GEMINI',
  'REQUIRED_EXPLICIT',
  'ENUMS_EXPLICIT',
  'SIDE_EFFECT_DECLARED',
  'HITL_TEXT',
  'TIMEOUT',
  'IDEMPOTENCY',
  'TENANT_SCOPE',
  'REDACTION',
  'RESULT_SIZE',
];

/** The new-tool checklist (contract v2, issue 11): the same converters and validators as tool-specs. */
describeEachDialect('the new-tool checklist', (dialect) => {
  const suite = gatewayForSuite(dialect);

  it('answers create with the checklist: every check, and ok when nothing FAILs', async () => {
    const body = toolBody({
      name: 'lookup',
      tenantId: 'acme',
      timeoutMs: 2000,
      parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    });
    const res = await suite.gw.http.post('/api/v1/admin/tools').set(suite.gw.admin).send(body).expect(201);
    expect(res.body.checklist.items.map((i: Item) => i.check)).toEqual(CHECKS);
    expect(res.body.checklist.ok).toBe(true);
    expect(byCheck(res.body.checklist.items)).toMatchObject({
      SCHEMA_VALID: { status: 'PASS' },
      MODEL_OPENAI: { status: 'PASS' },
      MODEL_OPENAI_STRICT: { status: 'PASS' },
      MODEL_ANTHROPIC: { status: 'PASS' },
      MODEL_GEMINI: { status: 'PASS' },
      TENANT_SCOPE: { status: 'PASS', message: expect.stringContaining('acme') },
    });
  });

  it('checks a definition without storing it, naming the lossy rewrites per model and the missing approval text', async () => {
    const before = (await suite.gw.http.get('/api/v1/admin/tools').set(suite.gw.admin)).body.total;
    const body = toolBody({
      name: 'wire_money',
      sideEffect: 'HIGH_RISK',
      parameters: {
        type: 'object',
        oneOf: [
          { properties: { iban: { type: 'string' } }, required: ['iban'] },
          { properties: { account: { type: 'string' } }, required: ['account'] },
        ],
        properties: {
          meta: { type: 'object', additionalProperties: { type: 'string' } },
          apiToken: { type: 'string' },
          mode: { type: 'string', description: 'one of fast|slow' },
        },
      },
    });
    const res = await suite.gw.http.post('/api/v1/admin/tools/checklist').set(suite.gw.admin).send(body).expect(200);
    const items = byCheck(res.body.items);
    expect(res.body.ok).toBe(false);
    expect(items.HITL_TEXT).toMatchObject({ status: 'FAIL', message: expect.stringContaining('approvalText') });
    expect(items.MODEL_OPENAI).toMatchObject({ status: 'WARN', message: expect.stringContaining('root oneOf') });
    expect(items.MODEL_ANTHROPIC.status).toBe('WARN');
    expect(items.MODEL_GEMINI).toMatchObject({ status: 'WARN', message: expect.stringContaining('JSON text') });
    expect(items.MODEL_OPENAI_STRICT).toMatchObject({ status: 'WARN', message: expect.stringContaining('map') });
    expect(items.REQUIRED_EXPLICIT.status).toBe('WARN');
    expect(items.ENUMS_EXPLICIT).toMatchObject({ status: 'WARN', message: expect.stringContaining('mode') });
    expect(items.REDACTION).toMatchObject({ status: 'WARN', message: expect.stringContaining('apiToken') });
    expect(items.TENANT_SCOPE.status).toBe('WARN');
    expect((await suite.gw.http.get('/api/v1/admin/tools').set(suite.gw.admin)).body.total).toBe(before);
  });

  it('warns that Gemini is sent the arguments of a tool that takes a map as JSON text', async () => {
    const res = await suite.gw.http
      .post('/api/v1/admin/tools/checklist')
      .set(suite.gw.admin)
      .send(toolBody({ parameters: { type: 'object', additionalProperties: { type: 'string' } } }))
      .expect(200);
    expect(byCheck(res.body.items).MODEL_GEMINI).toMatchObject({
      status: 'WARN',
      message: expect.stringContaining('sent as JSON text'),
    });
  });

  it('warns of each alternative of a root union that Gemini drops, in the checklist and in the explained tool-specs', async () => {
    const parameters = {
      type: 'object',
      anyOf: [
        { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        { type: 'object', additionalProperties: { type: 'string' } },
      ],
    };
    const tool = (
      await suite.gw.http
        .post('/api/v1/admin/tools')
        .set(suite.gw.admin)
        .send(toolBody({ tenantId: 'acme', parameters }))
        .expect(201)
    ).body;
    const gemini = byCheck(tool.checklist.items).MODEL_GEMINI;
    expect(gemini.status).toBe('WARN');
    expect(gemini.message).toContain('#: root union of 2 alternatives laid out as one object');
    expect(gemini.message).toContain('#/anyOf/1: alternative (a map) dropped');
    const agent = (
      await suite.gw.http.post('/api/v1/admin/agents').set(suite.gw.admin).send({ name: 'union-bot', tenantId: 'acme' })
    ).body;
    await suite.gw.http
      .put(`/api/v1/admin/agents/${agent.id}/tools`)
      .set(suite.gw.admin)
      .send({ toolIds: [tool.id] })
      .expect(200);
    const specs = await suite.gw.http
      .post(`/api/v1/admin/agents/${agent.id}/tool-specs`)
      .set(suite.gw.admin)
      .send({ userId: 'u1', permissions: [], format: 'gemini', explain: true })
      .expect(200);
    const decision = specs.body.decisions.find((d: { toolId: string }) => d.toolId === tool.id);
    expect(decision.warnings).toEqual([
      expect.stringContaining('laid out as one object'),
      expect.stringContaining('#/anyOf/1: alternative (a map) dropped'),
    ]);
  });

  it('warns of a union Gemini drops below the root by its JSON pointer, in the checklist and in the explained tool-specs', async () => {
    const parameters = {
      type: 'object',
      properties: {
        order: {
          type: 'object',
          properties: {
            target: {
              anyOf: [{ type: 'object', properties: { id: { type: 'string' } } }, { type: 'string' }],
              oneOf: [{ type: 'integer' }, { type: 'boolean' }],
            },
          },
        },
      },
    };
    const dropped =
      '#/properties/order/properties/target/oneOf dropped: Gemini takes one union per schema, and ' +
      '#/properties/order/properties/target/anyOf is the one kept there';
    const tool = (
      await suite.gw.http
        .post('/api/v1/admin/tools')
        .set(suite.gw.admin)
        .send(toolBody({ tenantId: 'acme', parameters }))
        .expect(201)
    ).body;
    expect(byCheck(tool.checklist.items).MODEL_GEMINI).toMatchObject({
      status: 'WARN',
      message: expect.stringContaining(dropped),
    });
    const agent = (
      await suite.gw.http
        .post('/api/v1/admin/agents')
        .set(suite.gw.admin)
        .send({ name: 'nested-bot', tenantId: 'acme' })
    ).body;
    await suite.gw.http
      .put(`/api/v1/admin/agents/${agent.id}/tools`)
      .set(suite.gw.admin)
      .send({ toolIds: [tool.id] })
      .expect(200);
    const specs = await suite.gw.http
      .post(`/api/v1/admin/agents/${agent.id}/tool-specs`)
      .set(suite.gw.admin)
      .send({ userId: 'u1', permissions: [], format: 'gemini', explain: true })
      .expect(200);
    expect(specs.body.decisions.find((d: { toolId: string }) => d.toolId === tool.id).warnings).toEqual([dropped]);
    const spec = specs.body.tools.find((t: { name: string }) => t.name === tool.name);
    expect(spec.parameters.properties.order.properties.target).toEqual({
      anyOf: [{ type: 'object', properties: { id: { type: 'string' } } }, { type: 'string' }],
    });
  });

  it('names what the openai and anthropic specs rewrite, by JSON pointer and why, in the explained tool-specs as in the checklist', async () => {
    const parameters = {
      type: 'object',
      oneOf: [
        { properties: { iban: { type: 'string' } }, required: ['iban'] },
        { properties: { account: { type: 'string' } }, required: ['account'] },
      ],
      properties: { $top: { type: 'integer' }, labels: { type: 'object', additionalProperties: { type: 'string' } } },
    };
    const tool = (
      await suite.gw.http
        .post('/api/v1/admin/tools')
        .set(suite.gw.admin)
        .send(toolBody({ tenantId: 'acme', parameters }))
        .expect(201)
    ).body;
    const agent = (
      await suite.gw.http
        .post('/api/v1/admin/agents')
        .set(suite.gw.admin)
        .send({ name: 'rewrites-bot', tenantId: 'acme' })
        .expect(201)
    ).body;
    await suite.gw.http
      .put(`/api/v1/admin/agents/${agent.id}/tools`)
      .set(suite.gw.admin)
      .send({ toolIds: [tool.id] })
      .expect(200);
    const warningsOf = async (body: Record<string, unknown>): Promise<string[]> =>
      (
        await suite.gw.http
          .post(`/api/v1/admin/agents/${agent.id}/tool-specs`)
          .set(suite.gw.admin)
          .send({ userId: 'u1', permissions: [], explain: true, ...body })
          .expect(200)
      ).body.decisions.find((d: { toolId: string }) => d.toolId === tool.id).warnings;
    const laidOut = expect.stringMatching(
      /^#: root oneOf of 2 alternatives laid out as one object, as OpenAI and Anthropic refuse/,
    );
    const openai = await warningsOf({ format: 'openai' });
    expect(openai).toEqual([laidOut]);
    expect(await warningsOf({ format: 'anthropic' })).toEqual([
      laidOut,
      expect.stringMatching(
        /^#\/properties\/\$top: key sent as "_top_[0-9a-f]{8}", as Anthropic refuses property keys/,
      ),
    ]);
    expect(await warningsOf({ format: 'openai', strict: true })).toEqual([
      laidOut,
      '#/properties/labels: strict: false because it is a map (additionalProperties), which strict mode cannot express',
    ]);
    // The checklist says the same, from the same emitter.
    expect(byCheck(tool.checklist.items).MODEL_OPENAI.message).toContain(openai[0]);
  });

  it('reports an invalid schema as a SCHEMA_VALID failure', async () => {
    const res = await suite.gw.http
      .post('/api/v1/admin/tools/checklist')
      .set(suite.gw.admin)
      .send(toolBody({ parameters: { type: 'object', properties: { a: { type: 'nonsense' } } } }))
      .expect(200);
    expect(res.body.ok).toBe(false);
    expect(byCheck(res.body.items).SCHEMA_VALID).toMatchObject({
      status: 'FAIL',
      message: expect.stringContaining('parameters'),
    });
  });

  it('refuses a schema holding a number JSON cannot write (1e400), which every model format would emit as null', async () => {
    const body = JSON.stringify(
      toolBody({
        name: 'huge_bound',
        tenantId: 'acme',
        parameters: { type: 'object', properties: { n: { type: 'number', maximum: 12345 } } },
      }),
    ).replace('12345', '1e400');
    const res = await suite.gw.http
      .post('/api/v1/admin/tools')
      .set(suite.gw.admin)
      .set('Content-Type', 'application/json')
      .send(body)
      .expect(400);
    expect(JSON.stringify(res.body)).toContain('$.properties.n.maximum is a number too large for JSON');
    const listed = await suite.gw.http.get('/api/v1/admin/tools?tenantId=acme').set(suite.gw.admin).expect(200);
    expect(JSON.stringify(listed.body)).not.toContain('huge_bound');
  });

  it('answers for a stored tool of every source, and PATCH answers with the new checklist', async () => {
    const tools = (await suite.gw.http.get('/api/v1/admin/tools?source=BUILTIN').set(suite.gw.admin).expect(200)).body
      .items;
    for (const tool of tools) {
      const res = await suite.gw.http.get(`/api/v1/admin/tools/${tool.id}/checklist`).set(suite.gw.admin).expect(200);
      expect(res.body.items.map((i: Item) => i.check)).toEqual(CHECKS);
      expect(byCheck(res.body.items).MODEL_GEMINI.status).not.toBe('FAIL');
    }
    const created = (
      await suite.gw.http
        .post('/api/v1/admin/tools')
        .set(suite.gw.admin)
        .send(toolBody({ tenantId: 'acme', sideEffect: 'SIDE_EFFECT' }))
        .expect(201)
    ).body;
    expect(byCheck(created.checklist.items).HITL_TEXT.status).toBe('WARN');
    const patched = await suite.gw.http
      .patch(`/api/v1/admin/tools/${created.id}`)
      .set(suite.gw.admin)
      .send({ hitl: { approvalText: 'Send it?' } })
      .expect(200);
    expect(byCheck(patched.body.checklist.items).HITL_TEXT.status).toBe('PASS');
  });

  it("answers 404 for another tenant's tool", async () => {
    const created = (
      await suite.gw.http
        .post('/api/v1/admin/tools')
        .set(suite.gw.admin)
        .send(toolBody({ tenantId: 'acme' }))
        .expect(201)
    ).body;
    const globex = await createKey(suite.gw, 'globex', 'admin');
    await suite.gw.http.get(`/api/v1/admin/tools/${created.id}/checklist`).set(globex).expect(404);
  });
});
