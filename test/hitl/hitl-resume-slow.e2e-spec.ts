import { DataSource } from 'typeorm';
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { ResumeRecordRepository } from '@app/modules/loop-acting/acting/resume-record.repository';
import { describeEachDialect } from '@test/support/test-database';
import { agentWithTool, createKey, gatewayForSuite, SHELL_TOOL_FIELDS } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import { waitFor } from '@test/support/wait-for';

/** Renewed every 500 ms: a renewal a loaded machine delays by up to a second still comes in time. */
const LEASE_MS = 1_500;

describeEachDialect('a resume that outlives JOURNAL_LEASE_MS, sent again while it works', (dialect) => {
  const suite = gatewayForSuite(dialect, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', JOURNAL_LEASE_MS: String(LEASE_MS) });
  let remote: RecordingHttpServer;
  let runtime: { Authorization: string };
  let agentId: string;
  /** The remote's open answers, in arrival order: each approved call runs until the test answers it. */
  const held: ServerResponse[] = [];
  const answer = (res: ServerResponse) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ removed: true }));
  };

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    remote.handler = (_req, res) => void held.push(res);
    runtime = await createKey(suite.gw, 'acme', 'runtime');
    ({ agentId } = await agentWithTool(
      suite.gw,
      'acme',
      {
        name: 'shell_run',
        endpoint: remote.url('/shell_run'),
        ...SHELL_TOOL_FIELDS,
      },
      { name: 'slow-ops' },
    ));
  });
  afterAll(async () => {
    for (const res of held) res.destroy();
    await remote?.stop();
  });

  it('answers the repeat 409 RESUME_IN_PROGRESS while the first works, then the stored response; the call runs once', async () => {
    const gw = suite.gw;
    const sessionId = (
      await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u1', permissions: [] }).expect(201)
    ).body.id as string;
    const act = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'rm-1', name: 'shell_run', arguments: { command: 'rm -rf ./old' } }] })
      .expect(200);
    expect(act.body.hitlRequest.toolCallId).toBe('rm-1');

    const resume = () =>
      gw.http.post(`/api/v1/sessions/${sessionId}/resume`).set(runtime).send({ clientMessageId: 'approve-1' });
    const first = resume().then((r) => r);
    await waitFor(() => remote.requests.length === 1, { timeoutMs: 5_000, description: 'the approved call to start' });
    // The client gives up and retries once the resume's claim, as last written, would have run out: only renewals
    // keep it in progress.
    const [claim] = await gw.app
      .get(DataSource)
      .query(`SELECT created_at FROM resume_record WHERE session_id = ? AND client_message_id = 'approve-1'`, [
        sessionId,
      ]);
    const pastItsLease = Number(claim.created_at) + LEASE_MS + 100 - Date.now();
    await new Promise((r) => setTimeout(r, Math.max(0, pastItsLease)));
    const during = await resume();
    expect(during.status).toBe(409);
    expect(during.body.error.code).toBe('RESUME_IN_PROGRESS');

    answer(held[0]);
    const done = await first;
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'COMPLETED', results: [{ toolCallId: 'rm-1', status: 'COMPLETED' }] });
    const after = await resume();
    expect(after.status).toBe(200);
    expect(after.body).toEqual(done.body);
    expect(remote.requests).toHaveLength(1);
  });

  it('keeps the response of a first resume that stalled, although a repeat took its claim over and gave it back', async () => {
    const gw = suite.gw;
    const sessionId = (
      await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u1', permissions: [] }).expect(201)
    ).body.id as string;
    await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'rm-2', name: 'shell_run', arguments: { command: 'rm -rf ./older' } }] })
      .expect(200);
    const base = remote.requests.length;
    const resume = () =>
      gw.http.post(`/api/v1/sessions/${sessionId}/resume`).set(runtime).send({ clientMessageId: 'approve-2' });
    const first = resume().then((r) => r);
    await waitFor(() => remote.requests.length === base + 1, { description: 'the approved call to start' });
    // The first resume stalls: its claim is not renewed past the lease (what a blocked process leaves).
    await gw.app
      .get(DataSource)
      .query('UPDATE resume_record SET created_at = ? WHERE session_id = ? AND client_message_id = ?', [
        Date.now() - 60_000,
        sessionId,
        'approve-2',
      ]);
    // A repeat takes the stale claim over, finds the approved call still running, and gives the claim back.
    const during = await resume();
    expect(during.status).toBe(409);
    expect(during.body.error.code).toBe('TOOL_CALL_IN_PROGRESS');

    answer(held[base]);
    const done = await first;
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'COMPLETED', results: [{ toolCallId: 'rm-2', status: 'COMPLETED' }] });
    const after = await resume();
    expect(after.status).toBe(200);
    expect(after.body).toEqual(done.body);
    expect(remote.requests).toHaveLength(base + 1);
  });
});

describeEachDialect('a resume claim taken over after a stall', (dialect) => {
  const suite = gatewayForSuite(dialect);

  it('is not given back by the stalled holder: only the heartbeat the claim holds releases it', async () => {
    const records = suite.gw.app.get(ResumeRecordRepository);
    const sessionId = randomUUID();
    const stalled = await records.claim(sessionId, 'msg-1', 60_000);
    expect(stalled.kind).toBe('claimed');
    await new Promise((r) => setTimeout(r, 5));
    // Not renewed for longer than the lease (0 here): a repeat takes the claim over.
    const repeat = await records.claim(sessionId, 'msg-1', 0);
    expect(repeat.kind).toBe('claimed');

    // The stalled holder fails and gives back what it thinks is its claim: the repeat's stays.
    await records.release(sessionId, 'msg-1', (stalled as { at: number }).at);
    expect((await records.claim(sessionId, 'msg-1', 60_000)).kind).toBe('running');

    await records.release(sessionId, 'msg-1', (repeat as { at: number }).at);
    expect((await records.claim(sessionId, 'msg-1', 60_000)).kind).toBe('claimed');
  });
});
