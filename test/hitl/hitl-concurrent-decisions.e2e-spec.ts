import { createTestDatabaseUrl, describeEachDialect, type TestDatabase } from '@test/support/test-database';
import {
  createKey,
  sessionWithTool,
  SHELL_TOOL_FIELDS,
  startTestGateway,
  type TestGateway,
} from '@test/support/gateway-test-app';
import { BatchRunner } from '@app/modules/loop-acting/acting/batch-runner';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';

/**
 * Two instances on one database decide the same approval request at once: a runtime's resume on A has saved its
 * APPROVE and is about to run the call when an admin's APPROVE of the same request arrives at B. B's decision finds the
 * request decided and must leave the session as it is: before, its save moved the session's version although it
 * decided nothing, so A's resume ran the call and then answered 409 CONCURRENT_MODIFICATION (the call's result reached
 * no one, the session stayed INTERRUPTED on a request already carried out).
 */
describeEachDialect('one approval decided on two instances at once', (dialect) => {
  let db: TestDatabase;
  const gateways: TestGateway[] = [];
  let remote: RecordingHttpServer;

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    remote.handler = (req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ran: JSON.parse(req.body).command }));
    };
    db = await createTestDatabaseUrl(dialect);
    for (let i = 0; i < 2; i++) gateways.push(await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' }));
  }, 240_000);
  afterAll(async () => {
    for (const gw of gateways) await gw.close();
    await remote?.stop();
    await db?.drop();
  });

  it("the resume that saved the decision answers the call's result; the admin's decision on the other instance is told it is in progress", async () => {
    const [a, b] = gateways;
    const runtime = await createKey(a, 'acme', 'runtime');
    const { sessionId } = await sessionWithTool(a, runtime, 'acme', {
      name: 'shell_run',
      endpoint: remote.url('/shell_run'),
      ...SHELL_TOOL_FIELDS,
    });
    const acted = await a.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'rm-1', name: 'shell_run', arguments: { command: 'rm -rf ./old' } }] })
      .expect(200);
    const requestId = acted.body.hitlRequest.id as string;

    // A's resume has saved its decision; before it runs the call, the admin's decision reaches B and is answered.
    const batches = a.app.get(BatchRunner);
    const run = batches.run.bind(batches);
    let adminAnswer: { status: number; body: any } | undefined;
    const spy = jest.spyOn(batches, 'run').mockImplementation(async (...args) => {
      adminAnswer ??= await b.http
        .post(`/api/v1/admin/hitl/${requestId}/decision`)
        .set(b.admin)
        .send({ decision: 'APPROVE', reviewer: 'bob' });
      return run(...args);
    });
    const resume = () =>
      a.http.post(`/api/v1/sessions/${sessionId}/resume`).set(runtime).send({ clientMessageId: 'approve-1' });
    let resumed: Awaited<ReturnType<typeof resume>>;
    try {
      resumed = await resume();
    } finally {
      spy.mockRestore();
    }

    expect(adminAnswer).toMatchObject({ status: 409, body: { error: { code: 'RESUME_IN_PROGRESS' } } });
    expect({ status: resumed.status, error: resumed.body.error?.code }).toEqual({ status: 200, error: undefined });
    expect(resumed.body.results).toEqual([
      expect.objectContaining({ toolCallId: 'rm-1', status: 'COMPLETED', content: '{"ran":"rm -rf ./old"}' }),
    ]);
    expect(remote.requests).toHaveLength(1);
    expect((await resume().expect(200)).body).toEqual(resumed.body);
    const session = await b.http.get(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200);
    expect(session.body).toMatchObject({ status: 'ACTIVE', hitlPending: false });
    expect(remote.requests).toHaveLength(1);
  });
});
