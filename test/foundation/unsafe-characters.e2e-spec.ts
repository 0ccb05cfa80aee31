import { createKey, gatewayForSuite, toolBody } from '@test/support/gateway-test-app';

const NUL = '\u0000';
const RLO = '\u202e'; // right-to-left override
const LRI = '\u2066'; // left-to-right isolate
const ZWSP = '\u200b';

/** The field problems of a 400 VALIDATION_FAILED answer. */
function problemsOf(res: {
  body: { error: { code: string; details: { fields: Array<{ field: string; problems: string[] }> } } };
}): Record<string, string> {
  expect(res.body.error.code).toBe('VALIDATION_FAILED');
  return Object.fromEntries(res.body.error.details.fields.map((f) => [f.field, f.problems.join('; ')]));
}

describe('NUL, control and bidi-override characters in names, descriptions and userId (issue 9 #11)', () => {
  const suite = gatewayForSuite('sqlite');

  it.each([
    ['a NUL', `Looks up${NUL} an order.`],
    ['a right-to-left override', `Looks up ${RLO}redro na.`],
    ['a bidi isolate', `Looks up ${LRI}an order.`],
    ['a bell', 'Looks up \u0007an order.'],
    ['a C1 control', 'Looks up \u0085an order.'],
  ])('refuses a tool description with %s: 400 naming the field', async (_what, description) => {
    const res = await suite.gw.http
      .post('/api/v1/admin/tools')
      .set(suite.gw.admin)
      .send(toolBody({ description }))
      .expect(400);
    expect(problemsOf(res).description).toMatch(/must not contain control characters .* bidi/);
  });

  it('accepts tabs and line breaks in a description, and zero-width joiners in emoji', async () => {
    await suite.gw.http
      .post('/api/v1/admin/tools')
      .set(suite.gw.admin)
      .send(toolBody({ description: 'Line one.\n\tLine two.\r\nFamily: 👨‍👩‍👧' }))
      .expect(201);
  });

  it('refuses such characters in remoteName, permissionTags, tags and the HITL approval text', async () => {
    const res = await suite.gw.http
      .post('/api/v1/admin/tools')
      .set(suite.gw.admin)
      .send(
        toolBody({
          remoteName: `lookup${RLO}`,
          permissionTags: [`orders${NUL}:read`],
          tags: [`a${ZWSP}b`],
          hitl: { approvalText: `Approve${RLO}?` },
        }),
      )
      .expect(400);
    expect(Object.keys(problemsOf(res)).sort()).toEqual(['hitl.approvalText', 'permissionTags', 'remoteName', 'tags']);
  });

  it('refuses them in agent names and descriptions, also on PATCH', async () => {
    const { gw } = suite;
    const res = await gw.http
      .post('/api/v1/admin/agents')
      .set(gw.admin)
      .send({ name: `support${RLO}tob`, tenantId: 'acme', description: `x${NUL}` })
      .expect(400);
    expect(Object.keys(problemsOf(res)).sort()).toEqual(['description', 'name']);
    const agent = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'clean', tenantId: 'acme' }).expect(201)
    ).body;
    expect(
      problemsOf(
        await gw.http
          .patch(`/api/v1/admin/agents/${agent.id}`)
          .set(gw.admin)
          .send({ name: `a${ZWSP}` })
          .expect(400),
      ).name,
    ).toMatch(/zero-width/);
  });

  it('refuses them in API key names and MCP service Nacos names', async () => {
    const { gw } = suite;
    expect(
      problemsOf(
        await gw.http
          .post('/api/v1/admin/api-keys')
          .set(gw.admin)
          .send({ name: `ops${NUL}`, role: 'runtime', tenantId: 'acme' })
          .expect(400),
      ),
    ).toHaveProperty('name');
    const res = await gw.http
      .post('/api/v1/admin/mcp-services')
      .set(gw.admin)
      .send({ name: 'n', kind: 'NACOS', serviceName: `svc${RLO}` })
      .expect(400);
    expect(problemsOf(res)).toHaveProperty('serviceName');
  });

  // Half a character cannot be stored: UTF-8 has no encoding for it. SQLite kept the bytes and read them back as three
  // U+FFFD, so "x\ud800" and "x\ud801" were two agents shown with one name; MySQL stored U+FFFD, so the second was a
  // 409 AGENT_NAME_TAKEN for a name nobody had used. Whole characters (an emoji's pair) still go through.
  it('refuses half of a character (a lone UTF-16 surrogate) in names, descriptions and userId, naming the field', async () => {
    const { gw } = suite;
    const HALF = '\ud800';
    const agent = await gw.http
      .post('/api/v1/admin/agents')
      .set(gw.admin)
      .send({ name: `x${HALF}`, tenantId: 'acme', description: `d\udfff` })
      .expect(400);
    expect(problemsOf(agent)).toEqual({
      name: expect.stringContaining('a lone UTF-16 surrogate'),
      description: expect.stringContaining('a lone UTF-16 surrogate'),
    });
    const tool = await gw.http
      .post('/api/v1/admin/tools')
      .set(gw.admin)
      .send(toolBody({ description: `Looks up${HALF}`, hitl: { approvalText: `Approve${HALF}?` } }))
      .expect(400);
    expect(Object.keys(problemsOf(tool)).sort()).toEqual(['description', 'hitl.approvalText']);
    const key = await gw.http
      .post('/api/v1/admin/api-keys')
      .set(gw.admin)
      .send({ name: `ops${HALF}`, role: 'runtime', tenantId: 'acme' })
      .expect(400);
    expect(Object.keys(problemsOf(key))).toEqual(['name']);
    const made = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'whole 😀', tenantId: 'acme' }).expect(201)
    ).body;
    expect(made.name).toBe('whole 😀');
    const runtime = await createKey(gw, 'acme', 'runtime');
    const session = await gw.http
      .post('/api/v1/sessions')
      .set(runtime)
      .send({ agentId: made.id, userId: `u${HALF}`, permissions: [] })
      .expect(400);
    expect(Object.keys(problemsOf(session))).toEqual(['userId']);
    const specs = await gw.http
      .post(`/api/v1/agents/${made.id}/tool-specs`)
      .set(runtime)
      .send({ userId: `u${HALF}`, permissions: [] })
      .expect(400);
    expect(problemsOf(specs).userId).toContain('a lone UTF-16 surrogate');
    await gw.http
      .post(`/api/v1/agents/${made.id}/tool-specs`)
      .set(runtime)
      .send({ userId: 'u😀', permissions: [] })
      .expect(200);
  });

  it("refuses them in the runtime userId of sessions, tool-specs and execute, naming userId, and in a session's task description", async () => {
    const { gw } = suite;
    const runtime = await createKey(gw, 'acme', 'runtime');
    const agent = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'runtime', tenantId: 'acme' }).expect(201)
    ).body;
    const session = await gw.http
      .post('/api/v1/sessions')
      .set(runtime)
      .send({ agentId: agent.id, userId: `u1${NUL}`, permissions: [] })
      .expect(400);
    expect(problemsOf(session).userId).toMatch(/must not contain control characters/);
    // A session's task description is free text like every other description: line breaks yes, NUL and RLO no.
    for (const bad of [`Fix the sheet${NUL}`, `Fix the ${RLO}sheet`]) {
      const task = await gw.http
        .post('/api/v1/sessions')
        .set(runtime)
        .send({ agentId: agent.id, userId: 'u1', permissions: [], task: { description: bad } })
        .expect(400);
      expect(problemsOf(task)['task.description']).toMatch(/must not contain control characters/);
    }
    await gw.http
      .post('/api/v1/sessions')
      .set(runtime)
      .send({ agentId: agent.id, userId: 'u1', permissions: [], task: { description: 'Fix the sheet.\n\tRow 2 too.' } })
      .expect(201);
    const specs = await gw.http
      .post(`/api/v1/agents/${agent.id}/tool-specs`)
      .set(runtime)
      .send({ userId: `u1${LRI}`, permissions: [] })
      .expect(400);
    expect(problemsOf(specs).userId).toMatch(/bidi/);
    const execute = await gw.http
      .post('/api/v1/tools/get_order/execute')
      .set(runtime)
      .send({ agentId: agent.id, userId: `u1${RLO}`, permissions: [], arguments: {} })
      .expect(400);
    expect(problemsOf(execute)).toEqual({
      userId: expect.stringMatching(/must not contain control characters .* bidi/),
    });
    // A plain userId still goes through validation (whatever the call then answers).
    const plain = await gw.http
      .post('/api/v1/tools/get_order/execute')
      .set(runtime)
      .send({ agentId: agent.id, userId: 'u1', permissions: [], arguments: {} });
    expect(plain.status).not.toBe(400);
  });
});
