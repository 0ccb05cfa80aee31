import { DataSource } from 'typeorm';
import { describeEachDialect } from '@test/support/test-database';
import { agentWithTool, createKey, gatewayForSuite, SHELL_TOOL_FIELDS } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import { AgentSessionRepository } from '@app/modules/loop-acting/sessions/agent-session.repository';

describeEachDialect('a resume sent again after its process died', (dialect) => {
  const suite = gatewayForSuite(dialect, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
  let remote: RecordingHttpServer;
  let runtime: { Authorization: string };
  let agentId: string;

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    remote.handler = (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true }));
    };
    const gw = suite.gw;
    runtime = await createKey(gw, 'acme', 'runtime');
    ({ agentId } = await agentWithTool(
      gw,
      'acme',
      {
        name: 'shell_run',
        endpoint: remote.url('/shell_run'),
        ...SHELL_TOOL_FIELDS,
      },
      { name: 'ops' },
    ));
  });

  afterAll(async () => {
    await remote?.stop();
  });

  /**
   * A resume whose process dies just after the commit that moves the session to `status` (nothing after it runs:
   * it answers 500), and whose claim is then past its lease (the dead holder renews it no more).
   */
  async function resumeDyingAfterTheSessionMoves(sessionId: string, status: string, clientMessageId: string) {
    const gw = suite.gw;
    const sessions = gw.app.get(AgentSessionRepository);
    const commit = sessions.compareAndSet.bind(sessions);
    const crash = jest.spyOn(sessions, 'compareAndSet').mockImplementation(async (...args) => {
      const moved = await commit(...args);
      if (args[0] === sessionId && args[2].status === status) throw new Error('killed after the session moved');
      return moved;
    });
    try {
      await gw.http.post(`/api/v1/sessions/${sessionId}/resume`).set(runtime).send({ clientMessageId }).expect(500);
    } finally {
      crash.mockRestore();
    }
    await gw.app
      .get(DataSource)
      .query("UPDATE resume_record SET created_at = ? WHERE session_id = ? AND state = 'IN_PROGRESS'", [
        Date.now() - 600_000,
        sessionId,
      ]);
  }

  it('answers the resume sent again with the response of the first, whose batch stopped at the next request just before its process died, and never decides that request', async () => {
    const gw = suite.gw;
    const sessionId = (
      await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u1', permissions: [] }).expect(201)
    ).body.id as string;
    const first = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({
        iteration: 1,
        toolCalls: [
          { id: 'rm-a', name: 'shell_run', arguments: { command: 'rm -rf ./reviewed' } },
          { id: 'rm-b', name: 'shell_run', arguments: { command: 'rm -rf ./never-reviewed' } },
        ],
      })
      .expect(200);
    expect(first.body.hitlRequest.toolCallId).toBe('rm-a');
    // The process dies just after the commit that makes the session wait on rm-b.
    await resumeDyingAfterTheSessionMoves(sessionId, 'INTERRUPTED', 'approve-a');
    expect(remote.requests.filter((r) => r.body.includes('./reviewed'))).toHaveLength(1);
    // The runtime never got its answer and sends the same resume again: it gets the answer, nothing more runs.
    const again = await gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(runtime)
      .send({ clientMessageId: 'approve-a' })
      .expect(200);
    expect(again.body).toMatchObject({
      status: 'INTERRUPTED',
      results: [
        { toolCallId: 'rm-a', status: 'COMPLETED' },
        { toolCallId: 'rm-b', status: 'PENDING_APPROVAL' },
      ],
      hitlRequest: { toolCallId: 'rm-b' },
    });
    expect(remote.requests.filter((r) => r.body.includes('./reviewed'))).toHaveLength(1);
    expect(remote.requests.filter((r) => r.body.includes('never-reviewed'))).toHaveLength(0);
    const session = (await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200)).body;
    expect(session).toMatchObject({ status: 'INTERRUPTED', hitlRequest: { toolCallId: 'rm-b' } });
    // rm-b is still the human's to decide.
    const rejected = await gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(runtime)
      .send({ clientMessageId: 'reject-b', decision: 'REJECT' })
      .expect(200);
    expect(rejected.body.results[0]).toMatchObject({ toolCallId: 'rm-b', status: 'REJECTED' });
    expect(remote.requests.filter((r) => r.body.includes('never-reviewed'))).toHaveLength(0);
  });

  it('answers the resume sent again with the response of the first, whose process died right after the session moved on', async () => {
    const gw = suite.gw;
    const sessionId = (
      await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u1', permissions: [] }).expect(201)
    ).body.id as string;
    await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'rm-c', name: 'shell_run', arguments: { command: 'rm -rf ./died' } }] })
      .expect(200);
    // The process dies just after the commit that makes the session ACTIVE again.
    await resumeDyingAfterTheSessionMoves(sessionId, 'ACTIVE', 'approve-c');
    const again = await gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(runtime)
      .send({ clientMessageId: 'approve-c' })
      .expect(200);
    expect(again.body).toMatchObject({ status: 'COMPLETED', results: [{ toolCallId: 'rm-c', status: 'COMPLETED' }] });
    expect(remote.requests.filter((r) => r.body.includes('./died'))).toHaveLength(1);
  });
});
