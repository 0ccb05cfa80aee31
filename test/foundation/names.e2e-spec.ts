import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite, toolBody } from '@test/support/gateway-test-app';

describeEachDialect('names: unique per scope case-insensitively, valid for every model (issue 9 #7)', (dialect) => {
  const suite = gatewayForSuite(dialect);
  const tools = '/api/v1/admin/tools';
  const agents = '/api/v1/admin/agents';

  it('answers 409 TOOL_NAME_TAKEN for a tool name that differs only in case, in the scope and, for a tenant’s, against platform-wide tools', async () => {
    const { gw } = suite;
    const first = (
      await gw.http
        .post(tools)
        .set(gw.admin)
        .send(toolBody({ name: 'Search', tenantId: 'acme' }))
        .expect(201)
    ).body;
    const dup = await gw.http
      .post(tools)
      .set(gw.admin)
      .send(toolBody({ name: 'search', tenantId: 'acme' }))
      .expect(409);
    expect(dup.body.error).toMatchObject({
      code: 'TOOL_NAME_TAKEN',
      details: { name: 'search', existingToolId: first.id },
    });
    await gw.http
      .post(tools)
      .set(gw.admin)
      .send(toolBody({ name: 'search', tenantId: 'globex' }))
      .expect(201);
    // The platform may take a name tenants hold (theirs shadow it for them); from then on no other tenant may.
    await gw.http
      .post(tools)
      .set(gw.admin)
      .send(toolBody({ name: 'SEARCH' }))
      .expect(201);
    await gw.http
      .post(tools)
      .set(gw.admin)
      .send(toolBody({ name: 'Search', tenantId: 'initech' }))
      .expect(409);
    await gw.http
      .post(tools)
      .set(gw.admin)
      .send(toolBody({ name: 'Web_Search', tenantId: 'acme' }))
      .expect(409);
  });

  it('answers 409 to a PATCH that renames a tool onto another name in another case, and lets a tool change the case of its own', async () => {
    const { gw } = suite;
    const a = (
      await gw.http
        .post(tools)
        .set(gw.admin)
        .send(toolBody({ name: 'Lookup', tenantId: 'initech' }))
        .expect(201)
    ).body;
    const b = (
      await gw.http
        .post(tools)
        .set(gw.admin)
        .send(toolBody({ name: 'other_lookup', tenantId: 'initech' }))
        .expect(201)
    ).body;
    const clash = await gw.http.patch(`${tools}/${b.id}`).set(gw.admin).send({ name: 'LOOKUP' }).expect(409);
    expect(clash.body.error).toMatchObject({ code: 'TOOL_NAME_TAKEN', details: { existingToolId: a.id } });
    expect(
      (await gw.http.patch(`${tools}/${a.id}`).set(gw.admin).send({ name: 'lookup' }).expect(200)).body,
    ).toMatchObject({ name: 'lookup' });
    await gw.http
      .post(tools)
      .set(gw.admin)
      .send(toolBody({ name: 'LookUp', tenantId: 'initech' }))
      .expect(409);
  });

  it.each(['1password', '-dash', '9'])(
    'refuses a tool name that does not start with a letter or _ (%s) with 400 naming the field',
    async (name) => {
      const res = await suite.gw.http.post(tools).set(suite.gw.admin).send(toolBody({ name })).expect(400);
      expect(res.body.error).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: { fields: [{ field: 'name', problems: [expect.stringMatching(/starting with a letter or _/)] }] },
      });
    },
  );

  it('accepts a tool name that starts with _', async () => {
    await suite.gw.http
      .post(tools)
      .set(suite.gw.admin)
      .send(toolBody({ name: '_private_lookup' }))
      .expect(201);
  });

  it('answers 409 MCP_SERVICE_NAME_TAKEN for an MCP service name that differs only in case within a scope', async () => {
    const { gw } = suite;
    const body = { kind: 'STATIC', url: 'http://127.0.0.1:9/mcp', tenantId: 'acme' };
    await gw.http
      .post('/api/v1/admin/mcp-services')
      .set(gw.admin)
      .send({ ...body, name: 'Weather' })
      .expect(201);
    const dup = await gw.http
      .post('/api/v1/admin/mcp-services')
      .set(gw.admin)
      .send({ ...body, name: 'weather' })
      .expect(409);
    expect(dup.body.error.code).toBe('MCP_SERVICE_NAME_TAKEN');
    await gw.http
      .post('/api/v1/admin/mcp-services')
      .set(gw.admin)
      .send({ ...body, name: 'weather', tenantId: 'globex' })
      .expect(201);
  });

  it.each([
    ['Café', 'Cafe'],
    ['Straße', 'Strasse'],
    ['𠮷野家', '𩸽野家'],
  ])(
    'takes %s and %s as two agents of one tenant, on both databases (letter case alone makes a clash)',
    async (a, b) => {
      const tenantId = `agent-names-${Buffer.from(a).toString('hex').slice(0, 12)}`;
      const create = (name: string) => suite.gw.http.post(agents).set(suite.gw.admin).send({ name, tenantId });
      await create(a).expect(201);
      await create(b).expect(201);
      const clash = await create(a.toUpperCase()).expect(409);
      expect(clash.body.error.code).toBe('AGENT_NAME_TAKEN');
    },
  );

  it('takes an agent name of 128 characters whose lower case is longer (İ is i and a combining dot), on create and on PATCH, and refuses it again in other letter case', async () => {
    const { gw } = suite;
    const name = `${'İ'.repeat(100)}${'x'.repeat(28)}`;
    await gw.http.post(agents).set(gw.admin).send({ name, tenantId: 'agent-names-long' }).expect(201);
    const clash = await gw.http
      .post(agents)
      .set(gw.admin)
      .send({ name: `${'İ'.repeat(100)}${'X'.repeat(28)}`, tenantId: 'agent-names-long' });
    expect([clash.status, clash.body.error?.code]).toEqual([409, 'AGENT_NAME_TAKEN']);
    const other = (
      await gw.http.post(agents).set(gw.admin).send({ name: 'short', tenantId: 'agent-names-long' }).expect(201)
    ).body;
    const renamed = await gw.http
      .patch(`${agents}/${other.id}`)
      .set(gw.admin)
      .send({ name: `${'İ'.repeat(128)}` });
    expect([renamed.status, renamed.body.name]).toEqual([200, 'İ'.repeat(128)]);
  });

  it('counts a name’s characters as the database does: an emoji with its presentation selector (❤️) is two', async () => {
    const create = (name: string) =>
      suite.gw.http.post(agents).set(suite.gw.admin).send({ name, tenantId: 'agent-names-emoji' });
    await create(`${'❤️'.repeat(64)}`).expect(201);
    const tooLong = await create(`${'❤️'.repeat(64)}x`);
    expect([tooLong.status, tooLong.body.error?.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(JSON.stringify(tooLong.body.error.details)).toContain('name');
  });

  it('answers 409 AGENT_NAME_TAKEN for an agent name that differs only in case within a tenant, on create and on PATCH', async () => {
    const { gw } = suite;
    await gw.http.post(agents).set(gw.admin).send({ name: 'Support-Bot', tenantId: 'acme' }).expect(201);
    const dup = await gw.http.post(agents).set(gw.admin).send({ name: 'support-bot', tenantId: 'acme' }).expect(409);
    expect(dup.body.error.code).toBe('AGENT_NAME_TAKEN');
    await gw.http.post(agents).set(gw.admin).send({ name: 'support-bot', tenantId: 'globex' }).expect(201);
    const other = (await gw.http.post(agents).set(gw.admin).send({ name: 'sales-bot', tenantId: 'acme' }).expect(201))
      .body;
    expect(
      (await gw.http.patch(`${agents}/${other.id}`).set(gw.admin).send({ name: 'SUPPORT-BOT' }).expect(409)).body.error
        .code,
    ).toBe('AGENT_NAME_TAKEN');
    expect(
      (await gw.http.patch(`${agents}/${other.id}`).set(gw.admin).send({ name: 'Sales-Bot' }).expect(200)).body.name,
    ).toBe('Sales-Bot');
  });
  // MySQL's utf8mb4_bin pads with spaces (PAD SPACE): "bot " was the name "bot" there (409 for a new agent, the unique
  // index for a PATCH) but another name on SQLite, where both were kept and listed alike.
  it.each(['bot ', ' bot', '   ', 'bot\t'])(
    'refuses an agent or model provider name %j that starts or ends with white space, on create and PATCH, with 400 naming the field',
    async (name) => {
      const { gw } = suite;
      const agent = await gw.http.post(agents).set(gw.admin).send({ name, tenantId: 'padded' });
      expect([agent.status, agent.body.error?.details?.fields?.map((f: { field: string }) => f.field)]).toEqual([
        400,
        ['name'],
      ]);
      expect(agent.body.error.message).toContain('must not start or end with white space');
      const made = (
        await gw.http
          .post(agents)
          .set(gw.admin)
          .send({ name: `padded-${Math.random().toString(36).slice(2, 8)}`, tenantId: 'padded' })
          .expect(201)
      ).body;
      await gw.http.patch(`${agents}/${made.id}`).set(gw.admin).send({ name }).expect(400);
      const provider = {
        name,
        tenantId: 'padded',
        kind: 'OPENAI_COMPATIBLE',
        baseUrl: 'https://models.example.com/v1',
        apiKey: '${secret:MODEL_KEY}',
        model: 'm',
      };
      const res = await gw.http.post('/api/v1/admin/model-providers').set(gw.admin).send(provider);
      expect([res.status, res.body.error?.details?.fields?.map((f: { field: string }) => f.field)]).toEqual([
        400,
        ['name'],
      ]);
    },
  );

  it('keeps white space inside a name: "support bot" is an agent name', async () => {
    await suite.gw.http.post(agents).set(suite.gw.admin).send({ name: 'support bot', tenantId: 'padded' }).expect(201);
  });
});
