import type { ServerResponse } from 'node:http';
import { DataSource } from 'typeorm';
import { describeEachDialect } from '@test/support/test-database';
import { createKey, gatewayForSuite, toolBody, SHELL_TOOL_FIELDS } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import { waitFor } from '@test/support/wait-for';

describeEachDialect('a decision whose batch the journal refuses', (dialect) => {
  const suite = gatewayForSuite(dialect, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
  let remote: RecordingHttpServer;
  let runtime: { Authorization: string };
  let agentId: string;
  /** The answers of /slow_read, held until the test gives them. */
  const slow: ServerResponse[] = [];

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    remote.handler = (req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url.startsWith('/slow')) slow.push(res);
      else res.end(JSON.stringify({ ok: true }));
    };
    const gw = suite.gw;
    runtime = await createKey(gw, 'acme', 'runtime');
    const tool = async (name: string, overrides: Record<string, unknown>) =>
      (
        await gw.http
          .post('/api/v1/admin/tools')
          .set(gw.admin)
          .send(toolBody({ name, tenantId: 'acme', endpoint: remote.url(`/${name}`), ...overrides }))
          .expect(201)
      ).body.id as string;
    const toolIds = [
      await tool('slow_read', { httpMethod: 'GET' }),
      await tool('read_doc', { httpMethod: 'GET' }),
      await tool('shell_run', {
        ...SHELL_TOOL_FIELDS,
      }),
    ];
    agentId = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'ops', tenantId: 'acme' }).expect(201)
    ).body.id;
    await gw.http.put(`/api/v1/admin/agents/${agentId}/tools`).set(gw.admin).send({ toolIds }).expect(200);
  });

  afterAll(async () => {
    for (const res of slow) res.destroy();
    await remote?.stop();
  });

  it('is refused before it is saved, so the session never waits on a decided request', async () => {
    const gw = suite.gw;
    const sessionId = (
      await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u1', permissions: [] }).expect(201)
    ).body.id as string;
    const act = (toolCalls: unknown[]) =>
      gw.http.post(`/api/v1/sessions/${sessionId}/act`).set(runtime).send({ iteration: 1, toolCalls });
    // While this batch waits on its slow first call, another submission uses its third toolCallId for other arguments.
    const interrupted = act([
      { id: 'c1', name: 'slow_read', arguments: { q: 'slow' } },
      { id: 'c2', name: 'shell_run', arguments: { command: 'rm -rf ./build' } },
      { id: 'c3', name: 'read_doc', arguments: { q: 'mine' } },
    ]).then((r) => r);
    await waitFor(() => slow.length === 1, { description: 'the batch to wait on its slow first call' });
    const other = await act([{ id: 'c3', name: 'read_doc', arguments: { q: 'theirs' } }]).expect(200);
    expect(other.body.results[0]).toMatchObject({ toolCallId: 'c3', status: 'COMPLETED' });
    slow[0].end(JSON.stringify({ ok: true }));
    const first = await interrupted;
    expect(first.body).toMatchObject({ status: 'INTERRUPTED', hitlRequest: { toolCallId: 'c2' } });
    const requestId = first.body.hitlRequest.id as string;

    const refused = await gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(runtime)
      .send({ clientMessageId: 'approve-c2' })
      .expect(409);
    expect(refused.body.error.code).toBe('TOOL_CALL_CONFLICT');
    const request = (await gw.http.get('/api/v1/admin/hitl?pageSize=100').set(gw.admin).expect(200)).body.items.find(
      (i: { id: string }) => i.id === requestId,
    );
    // Nothing was decided (the request can still be decided, or ended by closing the session); nothing ran.
    expect(request.status).toBe('PENDING');
    expect(remote.requests.filter((r) => r.url.startsWith('/shell_run'))).toHaveLength(0);
    await gw.http.delete(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200);
  });
  it('an approval of a call that no longer matches the reviewed fingerprint is refused before it is saved; a REJECT still ends it', async () => {
    const gw = suite.gw;
    const sessionId = (
      await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u1', permissions: [] }).expect(201)
    ).body.id as string;
    const first = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'f1', name: 'shell_run', arguments: { command: 'rm -rf ./old' } }] })
      .expect(200);
    const requestId = first.body.hitlRequest.id as string;
    // As a request raised before a change to how arguments are fingerprinted keeps it: not the pending call's now.
    await gw.app
      .get(DataSource)
      .query("UPDATE hitl_request SET fingerprint = 'reviewed-before-the-change' WHERE id = ?", [requestId]);
    const resume = (clientMessageId: string, decision: string) =>
      gw.http.post(`/api/v1/sessions/${sessionId}/resume`).set(runtime).send({ clientMessageId, decision });

    const refused = await resume('approve-f1', 'APPROVE').expect(409);

    expect(refused.body.error.code).toBe('TOOL_CALL_CONFLICT');
    const request = (await gw.http.get('/api/v1/admin/hitl?pageSize=100').set(gw.admin).expect(200)).body.items.find(
      (i: { id: string }) => i.id === requestId,
    );
    expect(request.status).toBe('PENDING');
    const rejected = await resume('reject-f1', 'REJECT').expect(200);
    expect(rejected.body.results[0]).toMatchObject({ toolCallId: 'f1', status: 'REJECTED' });
    expect((await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200)).body.status).toBe('ACTIVE');
    expect(remote.requests.filter((r) => r.body.includes('./old'))).toHaveLength(0);
  });
});
