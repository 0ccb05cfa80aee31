import type { ServerResponse } from 'node:http';
import { describeEachDialect } from '@test/support/test-database';
import {
  agentWithTool,
  createKey,
  gatewayForSuite,
  openSession,
  sessionWithTool,
  SHELL_TOOL_FIELDS,
} from '@test/support/gateway-test-app';
import { AgentSessionRepository } from '@app/modules/loop-acting/sessions/agent-session.repository';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import { waitFor } from '@test/support/wait-for';

/**
 * DELETE /sessions/{id} while a resume carries out its approval: the approved call that was running keeps its
 * outcome, the calls left answer NOT_RUN, and the resume answers that (stored under its clientMessageId, so the same
 * resume again gets it). Before, the resume found the session moved by the close and answered 409
 * CONCURRENT_MODIFICATION: the approved call had run, but its result reached no one, and the repeat was refused.
 */
describeEachDialect('closing a session while a resume carries out its approval', (dialect) => {
  const suite = gatewayForSuite(dialect, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
  let remote: RecordingHttpServer;
  const held: ServerResponse[] = [];

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    remote.handler = (_req, res) => void held.push(res);
  });
  afterAll(async () => {
    for (const res of held) res.destroy();
    await remote?.stop();
  });

  it('answers the approved call’s result and NOT_RUN for the rest, and the same resume again gets that answer', async () => {
    const { gw } = suite;
    const runtime = await createKey(gw, 'acme', 'runtime');
    const { sessionId } = await sessionWithTool(gw, runtime, 'acme', {
      name: 'shell_run',
      endpoint: remote.url('/shell_run'),
      ...SHELL_TOOL_FIELDS,
    });
    const acted = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({
        iteration: 1,
        toolCalls: [
          { id: 'rm-1', name: 'shell_run', arguments: { command: 'rm -rf ./old' } },
          { id: 'ls-2', name: 'shell_run', arguments: { command: 'ls' } },
        ],
      })
      .expect(200);
    expect(acted.body.hitlRequest.toolCallId).toBe('rm-1');

    const resume = () =>
      gw.http.post(`/api/v1/sessions/${sessionId}/resume`).set(runtime).send({ clientMessageId: 'approve-1' });
    const resuming = resume().then((r) => r);
    await waitFor(() => held.length === 1, { timeoutMs: 10_000, description: 'the approved call to run' });
    await gw.http.delete(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200);
    held[0].setHeader('content-type', 'application/json');
    held[0].end(JSON.stringify({ removed: true }));
    const resumed = await resuming;

    expect(resumed.status).toBe(200);
    expect(resumed.body.results.map((r: { toolCallId: string; status: string }) => [r.toolCallId, r.status])).toEqual([
      ['rm-1', 'COMPLETED'],
      ['ls-2', 'NOT_RUN'],
    ]);
    expect(resumed.body.results[0].content).toContain('removed');
    expect(remote.requests).toHaveLength(1);
    const again = await resume().expect(200);
    expect(again.body).toEqual(resumed.body);
    expect(remote.requests).toHaveLength(1);
    const session = await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200);
    expect(session.body.status).toBe('CLOSED');
  });

  it('answers a checkpoint continued while the session was being closed with NOT_RUN calls, not 409', async () => {
    const { gw } = suite;
    const runtime = await createKey(gw, 'acme', 'runtime');
    const { agentId } = await agentWithTool(
      gw,
      'acme',
      { name: 'lookup', endpoint: remote.url('/lookup') },
      { maxIterations: 1 },
    );
    const sessionId = await openSession(gw, runtime, agentId);
    const acted = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 2, toolCalls: [{ id: 'c1', name: 'lookup', arguments: { q: 'x' } }] })
      .expect(200);
    expect(acted.body.hitlRequest.requestType).toBe('CHECKPOINT_PAUSE');

    // The close lands after the resume saved its decision, just before it moves the session's iteration budget on.
    const sessions = gw.app.get(AgentSessionRepository);
    const compareAndSet = sessions.compareAndSet.bind(sessions);
    const spy = jest.spyOn(sessions, 'compareAndSet').mockImplementation(async (id, seen, changes, alongside) => {
      if (changes.iterationBudget !== undefined)
        await gw.http.delete(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200);
      return compareAndSet(id, seen, changes, alongside);
    });
    const resume = () =>
      gw.http.post(`/api/v1/sessions/${sessionId}/resume`).set(runtime).send({ clientMessageId: 'go-on' });
    let resumed: Awaited<ReturnType<typeof resume>>;
    try {
      resumed = await resume();
    } finally {
      spy.mockRestore();
    }

    expect(resumed.status).toBe(200);
    expect(resumed.body.results.map((r: { toolCallId: string; status: string }) => [r.toolCallId, r.status])).toEqual([
      ['c1', 'NOT_RUN'],
    ]);
    expect((await resume().expect(200)).body).toEqual(resumed.body);
    expect(remote.requests.filter((r) => r.url === '/lookup')).toEqual([]);
  });
});
