import { DataSource } from 'typeorm';
import { RetentionService } from '@app/modules/retention/retention.service';
import { SessionsService } from '@app/modules/loop-acting/sessions/sessions.service';
import { AgentSessionRepository } from '@app/modules/loop-acting/sessions/agent-session.repository';
import {
  agentWithTool,
  createKey,
  gatewayForSuite,
  openSession,
  SHELL_TOOL_FIELDS,
} from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';

const DAY = 24 * 60 * 60 * 1000;

/** SESSION_IDLE_CLOSE_DAYS: sessions a runtime never closes are closed by the retention job once idle that long. */
describeEachDialect('idle sessions closed by retention (SESSION_IDLE_CLOSE_DAYS)', (dialect) => {
  const suite = gatewayForSuite(dialect, {
    SESSION_IDLE_CLOSE_DAYS: '7',
    RETENTION_DAYS: '30',
    RETENTION_ENABLED: 'false',
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
  });
  let runtime: { Authorization: string };
  let agentId: string;

  beforeAll(async () => {
    runtime = await createKey(suite.gw, 'idle-acme', 'runtime');
    ({ agentId } = await agentWithTool(suite.gw, 'idle-acme', { name: 'shell', ...SHELL_TOOL_FIELDS }));
  });

  /** Moves a session's last change into the past, or sets its status (no API can). */
  const backdate = (id: string, updatedAt: number, status?: string) =>
    suite.gw.app
      .get(DataSource)
      .query(`UPDATE agent_session SET updated_at = ?${status ? ', status = ?' : ''} WHERE id = ?`, [
        updatedAt,
        ...(status ? [status] : []),
        id,
      ]);
  const statusOf = async (id: string) =>
    (await suite.gw.http.get(`/api/v1/sessions/${id}`).set(runtime).expect(200)).body.status as string;
  const act = (id: string, iteration: number, callId: string, command: string) =>
    suite.gw.http
      .post(`/api/v1/sessions/${id}/act`)
      .set(runtime)
      .send({ iteration, toolCalls: [{ id: callId, name: 'shell', arguments: { command } }] });

  it('closes ACTIVE and INTERRUPTED sessions idle longer than that, as a DELETE does, and no other', async () => {
    const now = Date.now();
    const idle = await openSession(suite.gw, runtime, agentId);
    const recent = await openSession(suite.gw, runtime, agentId);
    const running = await openSession(suite.gw, runtime, agentId);
    const waiting = await openSession(suite.gw, runtime, agentId);
    const interrupted = (await act(waiting, 1, 'idle_rm', 'rm -rf /srv/data').expect(200)).body;
    expect(interrupted.status).toBe('INTERRUPTED');
    await backdate(idle, now - 8 * DAY);
    await backdate(recent, now - 6 * DAY);
    await backdate(running, now - 8 * DAY, 'RUNNING');
    await backdate(waiting, now - 8 * DAY);

    const report = await suite.gw.app.get(RetentionService).purge(now);

    expect(report.idleSessionsClosed).toBe(2);
    expect(await statusOf(idle)).toBe('CLOSED');
    expect(await statusOf(waiting)).toBe('CLOSED');
    expect(await statusOf(recent)).toBe('ACTIVE');
    expect(await statusOf(running)).toBe('RUNNING');
    expect((await act(idle, 1, 'idle_late', 'ls').expect(409)).body.error.code).toBe('SESSION_CLOSED');
    // The approval it waited for is rejected, out of the review queue, as a DELETE of the session rejects it.
    const pending = await suite.gw.http.get('/api/v1/admin/hitl?status=PENDING').set(suite.gw.admin).expect(200);
    expect(pending.body.items.map((r: { sessionId: string }) => r.sessionId)).not.toContain(waiting);
    const decided = await suite.gw.http.get('/api/v1/admin/hitl?status=DECIDED').set(suite.gw.admin).expect(200);
    expect(decided.body.items.find((r: { sessionId: string }) => r.sessionId === waiting)).toMatchObject({
      decision: 'REJECT',
    });
    // Closed now, they are deleted RETENTION_DAYS from now, not by this run.
    expect(report.sessions).toBe(0);
    expect((await suite.gw.app.get(RetentionService).purge(now)).idleSessionsClosed).toBe(0);
  });

  it('keeps a session that changed after the cutoff open, though it was read as idle', async () => {
    const now = Date.now();
    const id = await openSession(suite.gw, runtime, agentId);
    await act(id, 1, 'idle_ls', 'ls').expect(200);
    const auth = { keyId: 'test', role: 'admin' as const, tenantId: 'idle-acme' };

    await expect(suite.gw.app.get(SessionsService).closeIdle(auth, id, now - 7 * DAY)).resolves.toBe(false);
    expect(await statusOf(id)).toBe('ACTIVE');
  });

  it('keeps a session open that a runtime acted on since the cutoff, with calls that needed no approval', async () => {
    const now = Date.now();
    const id = await openSession(suite.gw, runtime, agentId);
    await backdate(id, now - 8 * DAY);
    expect((await act(id, 1, 'idle_busy', 'ls').expect(200)).body.status).toBe('COMPLETED');

    await suite.gw.app.get(RetentionService).purge(now);

    expect(await statusOf(id)).toBe('ACTIVE');
  });

  it('keeps a session open that an act lands on after the close read it as idle', async () => {
    const now = Date.now();
    const id = await openSession(suite.gw, runtime, agentId);
    await backdate(id, now - 8 * DAY);
    const repo = suite.gw.app.get(AgentSessionRepository);
    const find = repo.find.bind(repo);
    let acted = false;
    // The act lands between the close's read of the session and its compare-and-set.
    const spy = jest.spyOn(repo, 'find').mockImplementation(async (sessionId) => {
      const row = await find(sessionId);
      if (sessionId === id && !acted) {
        acted = true;
        expect((await act(id, 1, 'idle_meanwhile', 'ls').expect(200)).body.status).toBe('COMPLETED');
      }
      return row;
    });
    const auth = { keyId: 'test', role: 'admin' as const, tenantId: 'idle-acme' };

    try {
      await expect(suite.gw.app.get(SessionsService).closeIdle(auth, id, now - 7 * DAY)).resolves.toBe(false);
    } finally {
      spy.mockRestore();
    }
    expect(acted).toBe(true);
    expect(await statusOf(id)).toBe('ACTIVE');
  });
});
