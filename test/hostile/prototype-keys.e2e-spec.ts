import { createTestDatabaseUrl, TestDatabase } from '@test/support/test-database';
import { createKey, startTestGateway, TestGateway, toolBody } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';

/**
 * Arguments with a `__proto__` key (JSON.parse keeps it as an ordinary member, and the remote receives it) are shown,
 * logged and fingerprinted with that member: a copy made by assignment turned it into the copy's prototype, so the
 * reviewer approved `{"q":"ok"}` while the remote was sent `{"q":"ok","__proto__":{...}}`.
 */
describe('hostile input: __proto__ keys in arguments', () => {
  let db: TestDatabase;
  let remote: RecordingHttpServer;
  let gw: TestGateway;
  let runtime: { Authorization: string };
  let agentId: string;

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    db = await createTestDatabaseUrl('sqlite');
    gw = await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
    runtime = await createKey(gw, 'acme', 'runtime');
    const body = toolBody({ name: 'risky', tenantId: 'acme', endpoint: remote.url('/risky'), sideEffect: 'HIGH_RISK' });
    const tool = (await gw.http.post('/api/v1/admin/tools').set(gw.admin).send(body).expect(201)).body;
    const plainBody = toolBody({ name: 'plain', tenantId: 'acme', endpoint: remote.url('/plain') });
    const plain = (await gw.http.post('/api/v1/admin/tools').set(gw.admin).send(plainBody).expect(201)).body;
    agentId = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'a', tenantId: 'acme' }).expect(201)
    ).body.id;
    await gw.http
      .put(`/api/v1/admin/agents/${agentId}/tools`)
      .set(gw.admin)
      .send({ toolIds: [tool.id, plain.id] })
      .expect(200);
  });
  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
    await db?.drop();
  });

  const newSession = async (): Promise<string> =>
    (await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u1', permissions: [] }).expect(201))
      .body.id;

  /** `act` with the arguments written as raw JSON text (a client library would drop or refuse the key). */
  const act = (sessionId: string, id: string, argumentsJson: string, tool = 'risky') =>
    gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .set('content-type', 'application/json')
      .send(`{"iteration":1,"toolCalls":[{"id":"${id}","name":"${tool}","arguments":${argumentsJson}}]}`);

  const HIDDEN = '{"q":"ok","__proto__":{"note":"drop the users table","password":"hunter2"}}';

  it('an admin body holding a __proto__ key is refused naming where, not stored without it', async () => {
    const body = JSON.stringify(toolBody({ name: 'proto_tool', tenantId: 'acme', endpoint: remote.url('/p') })).replace(
      '"properties":{',
      '"properties":{"__proto__":{"type":"string"},',
    );
    expect(body).toContain('"__proto__"');
    const res = await gw.http
      .post('/api/v1/admin/tools')
      .set(gw.admin)
      .set('content-type', 'application/json')
      .send(body)
      .expect(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.fields).toEqual([
      { field: 'body.parameters.properties', problems: [expect.stringContaining('"__proto__"')] },
    ]);
    const listed = await gw.http.get('/api/v1/admin/tools?q=proto_tool').set(gw.admin).expect(200);
    expect(listed.body.items).toEqual([]);
  });

  it('the reviewer sees the member the remote receives, and the tool log keeps it (redacted)', async () => {
    const sessionId = await newSession();
    const res = await act(sessionId, 'proto_1', HIDDEN).expect(200);
    expect(res.body.status).toBe('INTERRUPTED');
    const shown = JSON.stringify(res.body.hitlRequest.toolParams);
    expect(shown).toBe('{"q":"ok","__proto__":{"note":"drop the users table","password":"***"}}');
    const queue = await gw.http.get('/api/v1/admin/hitl?status=PENDING').set(gw.admin).expect(200);
    const queued = queue.body.items.find((r: { toolCallId: string }) => r.toolCallId === 'proto_1');
    expect(JSON.stringify(queued.toolParams)).toBe(shown);

    await gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(runtime)
      .send({ clientMessageId: 'approve-proto_1', decision: 'APPROVE' })
      .expect(200);
    expect(JSON.parse(remote.requests.at(-1)!.body)).toEqual(JSON.parse(HIDDEN));

    const log = await gw.http.get(`/api/v1/admin/tool-calls?sessionId=${sessionId}`).set(gw.admin).expect(200);
    expect(log.body.items.map((row: { arguments: unknown }) => JSON.stringify(row.arguments))).toContain(shown);
  });

  it('the same toolCallId with other __proto__ contents is other arguments: 409 TOOL_CALL_CONFLICT', async () => {
    const sessionId = await newSession();
    await act(sessionId, 'proto_2', '{"q":"ok"}', 'plain').expect(200);
    const res = await act(sessionId, 'proto_2', HIDDEN, 'plain').expect(409);
    expect(res.body.error.code).toBe('TOOL_CALL_CONFLICT');
  });
});
