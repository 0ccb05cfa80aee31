import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';
import { createKey, startTestGateway, TestGateway, toolBody } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';

/**
 * Arguments a runtime might submit: 40 levels of nesting around a long string, and a risky command. (Kept
 * under the 64 KB a MySQL TEXT column holds: the pending batch and the journal store the full arguments.)
 */
function hugeArguments(tag: string): Record<string, unknown> {
  let inner: unknown = { blob: 'z'.repeat(40_000), password: 'hunter2-secret' };
  for (let i = 0; i < 40; i++) inner = { level: i, inner };
  return { command: `rm -rf ./${tag}`, payload: inner };
}

describeEachDialect('the HITL queue stays small when a runtime submits huge nested arguments', (dialect) => {
  let db: TestDatabase;
  let gw: TestGateway;
  let remote: RecordingHttpServer;
  let runtime: { Authorization: string };
  let agentId: string;

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    db = await createTestDatabaseUrl(dialect);
    gw = await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
    runtime = await createKey(gw, 'acme', 'runtime');
    const shell = (
      await gw.http
        .post('/api/v1/admin/tools')
        .set(gw.admin)
        .send(
          toolBody({
            name: 'shell_run',
            tenantId: 'acme',
            endpoint: remote.url('/shell_run'),
            sideEffect: 'SIDE_EFFECT',
            parameters: {
              type: 'object',
              properties: { command: { type: 'string', 'x-risk': 'shell' }, payload: { type: 'object' } },
              required: ['command'],
            },
          }),
        )
        .expect(201)
    ).body;
    agentId = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'bulky', tenantId: 'acme' }).expect(201)
    ).body.id;
    await gw.http
      .put(`/api/v1/admin/agents/${agentId}/tools`)
      .set(gw.admin)
      .send({ toolIds: [shell.id] })
      .expect(200);
  });

  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
    await db?.drop();
  });

  it('stores and lists a capped preview (redacted, with a marker), pages the queue with a capped pageSize, and runs the full arguments once approved', async () => {
    const sessions: string[] = [];
    for (const tag of ['h1', 'h2', 'h3']) {
      const sessionId = (
        await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u', permissions: [] }).expect(201)
      ).body.id;
      sessions.push(sessionId);
      const res = await gw.http
        .post(`/api/v1/sessions/${sessionId}/act`)
        .set(runtime)
        .send({ iteration: 1, toolCalls: [{ id: `${tag}-c`, name: 'shell_run', arguments: hugeArguments(tag) }] })
        .expect(200);
      expect(res.body.status).toBe('INTERRUPTED');
      expect(res.text.length).toBeLessThan(20_000);
      expect(res.body.hitlRequest.toolParams).toEqual({
        $truncated: expect.stringContaining('shortened'),
        preview: expect.stringContaining('{"command":"rm -rf ./'),
      });
    }

    const page = await gw.http.get('/api/v1/admin/hitl?status=PENDING&pageSize=100').set(gw.admin).expect(200);
    expect(page.text.length).toBeLessThan(3 * 10_000);
    expect(page.body).toMatchObject({ total: 3, page: 1, pageSize: 100 });
    for (const item of page.body.items) {
      expect(item.toolParams.$truncated).toEqual(expect.any(String));
      expect(item.toolParams.preview.length).toBeLessThanOrEqual(4000);
      expect(JSON.stringify(item)).not.toContain('hunter2-secret');
    }
    const small = await gw.http.get('/api/v1/admin/hitl?status=PENDING&pageSize=2&page=2').set(gw.admin).expect(200);
    expect(small.body).toMatchObject({
      total: 3,
      page: 2,
      pageSize: 2,
      items: [expect.objectContaining({ sessionId: sessions[2] })],
    });
    const tooBig = await gw.http.get('/api/v1/admin/hitl?pageSize=500').set(gw.admin).expect(400);
    expect(tooBig.body.error.message).toMatch(/pageSize must not be greater than 100/);

    // The call itself keeps every byte: an approval runs it with the full arguments.
    const approved = await gw.http
      .post(`/api/v1/sessions/${sessions[0]}/resume`)
      .set(runtime)
      .send({ clientMessageId: 'ok' })
      .expect(200);
    expect(approved.body.results[0]).toMatchObject({ toolCallId: 'h1-c', status: 'COMPLETED' });
    expect(remote.requests).toHaveLength(1);
    expect(JSON.parse(remote.requests[0].body)).toEqual(hugeArguments('h1'));
  });
});
