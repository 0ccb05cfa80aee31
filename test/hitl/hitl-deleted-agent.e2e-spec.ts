import { describeEachDialect } from '@test/support/test-database';
import { agentWithTool, createKey, gatewayForSuite, openSession } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';

describeEachDialect('HITL decisions on a session whose agent was deleted', (dialect) => {
  const suite = gatewayForSuite(dialect, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
  let remote: RecordingHttpServer;
  let runtime: { Authorization: string };

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    remote.handler = (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true }));
    };
    runtime = await createKey(suite.gw, 'acme', 'runtime');
  });

  afterAll(async () => {
    await remote?.stop();
  });

  const pausedSession = async (name: string) => {
    const gw = suite.gw;
    const { agentId } = await agentWithTool(
      gw,
      'acme',
      { name: `read_${name}`, endpoint: remote.url(`/${name}`), httpMethod: 'GET' },
      { name, maxIterations: 2 },
    );
    const sessionId = await openSession(gw, runtime, agentId);
    const paused = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 3, toolCalls: [{ id: `${name}-1`, name: `read_${name}`, arguments: { q: 'x' } }] })
      .expect(200);
    expect(paused.body.hitlRequest).toMatchObject({ requestType: 'CHECKPOINT_PAUSE' });
    await gw.http.delete(`/api/v1/admin/agents/${agentId}`).set(gw.admin).expect(200);
    return { sessionId, requestId: paused.body.hitlRequest.id as string };
  };

  const state = async (sessionId: string, requestId: string) => {
    const gw = suite.gw;
    const session = (await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200)).body;
    const request = (await gw.http.get('/api/v1/admin/hitl?pageSize=100').set(gw.admin).expect(200)).body.items.find(
      (i: { id: string }) => i.id === requestId,
    );
    return { session: session.status as string, request: request.status as string };
  };

  it("a runtime's resume of a deleted agent's checkpoint pause is refused before the decision is saved; closing the session ends it", async () => {
    const gw = suite.gw;
    const { sessionId, requestId } = await pausedSession('gone-rt');
    const resumed = await gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(runtime)
      .send({ clientMessageId: 'cp-gone' })
      .expect(404);
    expect(resumed.body.error.message).toContain('was deleted');
    // Never a decided request with the session still waiting on it.
    expect(await state(sessionId, requestId)).toEqual({ session: 'INTERRUPTED', request: 'PENDING' });
    await gw.http.delete(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200);
    expect(await state(sessionId, requestId)).toEqual({ session: 'CLOSED', request: 'DECIDED' });
  });

  it("an admin's decision on a deleted agent's checkpoint pause saves nothing either", async () => {
    const gw = suite.gw;
    const { sessionId, requestId } = await pausedSession('gone-admin');
    await gw.http
      .post(`/api/v1/admin/hitl/${requestId}/decision`)
      .set(gw.admin)
      .send({ decision: 'CONTINUE', reviewer: 'ops' })
      .expect(404);
    expect(await state(sessionId, requestId)).toEqual({ session: 'INTERRUPTED', request: 'PENDING' });
  });
});
