import { DataSource } from 'typeorm';
import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';
import { createKey, startTestGateway, TestGateway, toolBody } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import { JournalOrphanSweepService } from '@app/modules/loop-acting/journal/journal-orphan-sweep.service';

/*
 * A call run again after its owner died (a READ_ONLY resubmit, a RETRY of an UNKNOWN_OUTCOME request raised by the
 * resubmit or by the sweep) runs the arguments the journal stored for its first run: those were already read as the
 * call's format reads them (a Gemini map unwrapped from arguments_json), so they are never read again.
 */
describeEachDialect('a call run again after a crash runs exactly the arguments of its first run', (dialect) => {
  let db: TestDatabase;
  let gw: TestGateway;
  let remote: RecordingHttpServer;
  let runtime: { Authorization: string };
  let agentId: string;
  const MAP = { type: 'object', additionalProperties: { type: 'string' } };

  const newSession = async () =>
    (await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u1', permissions: [] }).expect(201))
      .body.id as string;
  const act = (sessionId: string, call: { id: string; name: string; arguments: unknown }, format?: string) =>
    gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [call], format });
  /** The entry as a process that died during the call leaves it: STARTED, lease run out, the stored arguments kept. */
  const killOwner = (sessionId: string, toolCallId: string) =>
    gw.app
      .get(DataSource)
      .query(
        "UPDATE tool_call_journal SET state = 'STARTED', result_status = NULL, finished_at = NULL, owner = 'dead-instance', lease_expires_at = 1 WHERE session_id = ? AND tool_call_id = ?",
        [sessionId, toolCallId],
      );
  const bodies = (path: string) => remote.requests.filter((r) => r.url === path).map((r) => JSON.parse(r.body));
  const pendingRequestId = async (sessionId: string) =>
    (await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200)).body.hitlRequest.id as string;

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    db = await createTestDatabaseUrl(dialect);
    gw = await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', JOURNAL_SWEEP_INTERVAL_MS: '0' });
    runtime = await createKey(gw, 'acme', 'runtime');
    const create = async (name: string, sideEffect: string) =>
      (
        await gw.http
          .post('/api/v1/admin/tools')
          .set(gw.admin)
          .send(toolBody({ name, tenantId: 'acme', parameters: MAP, endpoint: remote.url(`/${name}`), sideEffect }))
          .expect(201)
      ).body.id as string;
    const toolIds = [await create('read_labels', 'READ_ONLY'), await create('set_labels', 'SIDE_EFFECT')];
    agentId = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'rerun', tenantId: 'acme' }).expect(201)
    ).body.id;
    await gw.http.put(`/api/v1/admin/agents/${agentId}/tools`).set(gw.admin).send({ toolIds }).expect(200);
  });

  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
    await db?.drop();
  });

  it('runs a READ_ONLY Gemini map again as unwrapped once, not twice, when the runtime resubmits it', async () => {
    const sessionId = await newSession();
    // A Gemini model's map whose one label is itself named arguments_json.
    const call = {
      id: 'g1',
      name: 'read_labels',
      arguments: { arguments_json: '{"arguments_json":"{\\"a\\":\\"1\\"}"}' },
    };
    await act(sessionId, call, 'gemini').expect(200);
    await killOwner(sessionId, 'g1');

    const again = await act(sessionId, call, 'gemini').expect(200);

    expect(again.body.results[0]).toMatchObject({ status: 'COMPLETED', reused: false });
    expect(bodies('/read_labels')).toEqual([{ arguments_json: '{"a":"1"}' }, { arguments_json: '{"a":"1"}' }]);
  });

  it('runs a RETRY of a side-effecting Gemini map with the arguments of its first run', async () => {
    const sessionId = await newSession();
    const call = {
      id: 'g2',
      name: 'set_labels',
      arguments: { arguments_json: '{"arguments_json":"{\\"b\\":\\"2\\"}"}' },
    };
    await act(sessionId, call, 'gemini').expect(200);
    await killOwner(sessionId, 'g2');
    expect((await act(sessionId, call, 'gemini').expect(200)).body.status).toBe('INTERRUPTED');

    const retried = await gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(runtime)
      .send({ clientMessageId: 'retry-g2', decision: 'RETRY' })
      .expect(200);

    expect(retried.body.results[0]).toMatchObject({ toolCallId: 'g2', status: 'COMPLETED' });
    expect(bodies('/set_labels')).toEqual([{ arguments_json: '{"b":"2"}' }, { arguments_json: '{"b":"2"}' }]);
  });

  it("runs an admin's RETRY of a swept OpenAI map whose one key is arguments_json with that key, as its first run", async () => {
    remote.requests.length = 0;
    const sessionId = await newSession();
    // An OpenAI model was given the map as it is: arguments_json is one of its labels, not a wrapper.
    const call = { id: 'o1', name: 'set_labels', arguments: { arguments_json: '{"c":"3"}' } };
    await act(sessionId, call, 'openai').expect(200);
    await killOwner(sessionId, 'o1');
    expect(await gw.app.get(JournalOrphanSweepService).sweep()).toBe(1);

    await gw.http
      .post(`/api/v1/admin/hitl/${await pendingRequestId(sessionId)}/decision`)
      .set(gw.admin)
      .send({ decision: 'RETRY', reviewer: 'ops' })
      .expect(200);

    expect(bodies('/set_labels')).toEqual([{ arguments_json: '{"c":"3"}' }, { arguments_json: '{"c":"3"}' }]);
  });
  it("raises a swept call whose stored arguments its format read (a Gemini map) and an admin's RETRY runs them", async () => {
    remote.requests.length = 0;
    const sessionId = await newSession();
    await act(sessionId, { id: 'g3', name: 'set_labels', arguments: { arguments_json: '{"d":"4"}' } }, 'gemini').expect(
      200,
    );
    await killOwner(sessionId, 'g3');

    expect(await gw.app.get(JournalOrphanSweepService).sweep()).toBe(1);
    const retried = await gw.http
      .post(`/api/v1/admin/hitl/${await pendingRequestId(sessionId)}/decision`)
      .set(gw.admin)
      .send({ decision: 'RETRY', reviewer: 'ops' })
      .expect(200);

    expect(retried.body.results[0]).toMatchObject({ toolCallId: 'g3', status: 'COMPLETED' });
    expect(bodies('/set_labels')).toEqual([{ d: '4' }, { d: '4' }]);
    // The runtime's resubmit of what its model sent gets the stored result: the same call.
    const resubmit = await act(
      sessionId,
      { id: 'g3', name: 'set_labels', arguments: { arguments_json: '{"d":"4"}' } },
      'gemini',
    ).expect(200);
    expect(resubmit.body.results[0]).toMatchObject({ status: 'COMPLETED', reused: true });
  });
  it('keeps a map key named __proto__ in the stored arguments and the fingerprint: the re-run sends it, other arguments conflict', async () => {
    remote.requests.length = 0;
    const sessionId = await newSession();
    const call = { id: 'p1', name: 'read_labels', arguments: '{"__proto__":"x","a":"1"}' };
    await act(sessionId, call).expect(200);
    await killOwner(sessionId, 'p1');

    await act(sessionId, call).expect(200);

    expect(remote.requests.map((r) => r.body)).toEqual(['{"__proto__":"x","a":"1"}', '{"__proto__":"x","a":"1"}']);
    const other = await act(sessionId, { ...call, arguments: '{"a":"1"}' }).expect(409);
    expect(other.body.error.code).toBe('TOOL_CALL_CONFLICT');
  });
});
