import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';
import { createKey, startTestGateway, TestGateway, toolBody } from '@test/support/gateway-test-app';

/** 128 characters of 3 bytes each in UTF-8. */
const wide = (n: number, tag: string) => `${tag}:`.padEnd(n, '权限');

/**
 * Every TEXT column that stores data of request size either takes what the API accepts on both databases
 * (LONGTEXT on MySQL) or the API refuses it with a 400 naming the limit: never a 500 on MySQL only.
 */
describeEachDialect('request-sized values and TEXT columns', (dialect) => {
  let db: TestDatabase;
  let gw: TestGateway;
  let runtime: { Authorization: string };

  beforeAll(async () => {
    db = await createTestDatabaseUrl(dialect);
    gw = await startTestGateway(db.url);
    runtime = await createKey(gw, 'acme', 'runtime');
  });

  afterAll(async () => {
    await gw?.close();
    await db?.drop();
  });

  it('keeps a session with 1,000 permissions of 128 characters and a todo list of 100 items of 500', async () => {
    const todoTool = (await gw.http.get('/api/v1/admin/tools?q=UPDATE_TODO_LIST').set(gw.admin).expect(200)).body
      .items[0];
    const agentId = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'planner', tenantId: 'acme' }).expect(201)
    ).body.id;
    await gw.http
      .put(`/api/v1/admin/agents/${agentId}/tools`)
      .set(gw.admin)
      .send({ toolIds: [todoTool.id] })
      .expect(200);
    const permissions = Array.from({ length: 1000 }, (_, i) => wide(128, `p${i}`));
    const session = await gw.http
      .post('/api/v1/sessions')
      .set(runtime)
      .send({ agentId, userId: 'u', permissions })
      .expect(201);

    const items = Array.from({ length: 100 }, (_, i) => ({
      id: `t${i}`,
      content: wide(500, `item ${i}`),
      status: 'pending',
    }));
    const res = await gw.http
      .post(`/api/v1/sessions/${session.body.id}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'todo', name: 'UPDATE_TODO_LIST', arguments: { items } }] })
      .expect(200);
    expect(res.body.results[0]).toMatchObject({ status: 'COMPLETED', isError: false });
    const read = await gw.http.get(`/api/v1/sessions/${session.body.id}`).set(runtime).expect(200);
    expect(read.body.todoList).toEqual(items);
  });

  it('records a reviewer message of 20,000 emoji (80 KB of UTF-8; class-validator counts an emoji as one character)', async () => {
    const risky = (
      await gw.http
        .post('/api/v1/admin/tools')
        .set(gw.admin)
        .send(toolBody({ tenantId: 'acme', sideEffect: 'HIGH_RISK', hitl: { approvalText: 'Sure?' } }))
        .expect(201)
    ).body;
    const agentId = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'careful', tenantId: 'acme' }).expect(201)
    ).body.id;
    await gw.http
      .put(`/api/v1/admin/agents/${agentId}/tools`)
      .set(gw.admin)
      .send({ toolIds: [risky.id] })
      .expect(200);
    const sessionId = (
      await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u', permissions: [] }).expect(201)
    ).body.id;
    await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'c1', name: risky.name, arguments: { q: 'x' } }] })
      .expect(200);
    const message = '🚫'.repeat(20_000);
    const res = await gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(runtime)
      .send({ clientMessageId: 'no', decision: 'REJECT', message })
      .expect(200);
    expect(res.body.results[0]).toMatchObject({ status: 'REJECTED' });
    const decided = (await gw.http.get('/api/v1/admin/hitl?status=DECIDED').set(gw.admin).expect(200)).body.items;
    expect(decided).toEqual([expect.objectContaining({ sessionId, decision: 'REJECT' })]);
  });

  it('refuses a parameters schema over 60,000 bytes of UTF-8 (though under 60,000 characters) with a 400', async () => {
    const parameters = { type: 'object', properties: { q: { type: 'string', description: '说明'.repeat(12_500) } } };
    const res = await gw.http
      .post('/api/v1/admin/tools')
      .set(gw.admin)
      .send(toolBody({ tenantId: 'acme', parameters }))
      .expect(400);
    expect(JSON.stringify(res.body.error)).toMatch(/larger than 60000 bytes as JSON in UTF-8/);
  });

  // 80 KB: more than a MySQL TEXT holds (it answered 500 there, 201 on SQLite).
  it('refuses header templates over 16 KB of JSON on tools and MCP services with a 400', async () => {
    const headers = Object.fromEntries(Array.from({ length: 160 }, (_, i) => [`X-Pad-${i}`, 'v'.repeat(500)]));
    const tool = await gw.http
      .post('/api/v1/admin/tools')
      .set(gw.admin)
      .send(toolBody({ tenantId: 'acme', headers }))
      .expect(400);
    expect(tool.body.error.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(tool.body.error)).toMatch(/headers must be at most 16,384 bytes as JSON/);
    const service = await gw.http
      .post('/api/v1/admin/mcp-services')
      .set(gw.admin)
      .send({ name: 'padded', kind: 'STATIC', url: 'http://127.0.0.1:9/mcp', headers })
      .expect(400);
    expect(JSON.stringify(service.body.error)).toMatch(/headers must be at most 16,384 bytes as JSON/);
  });
});
