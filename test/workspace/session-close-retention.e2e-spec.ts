import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { createKey, gatewayForSuite } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';
import { RetentionService } from '@app/modules/retention/retention.service';
import { WorkspaceLocator } from '@app/modules/workspace/workspace.locator';
import { WorkspaceFiles } from '@app/modules/workspace/workspace-files.service';
import { WorkspaceGate } from '@app/modules/workspace/workspace.gate';
import { WorkspaceBuiltinsDispatcher } from '@app/modules/workspace/workspace-builtins.dispatcher';
import { FILE_TOOLS, workspaceRootForSuite, workspaceTenant, type WorkspaceTenant } from './workspace-test-kit';

const DAY = 24 * 60 * 60 * 1000;

describeEachDialect('closing sessions, listing them, and retention of events and workspaces', (dialect) => {
  const root = workspaceRootForSuite();
  const suite = gatewayForSuite(dialect, { WORKSPACE_ROOT: root, RETENTION_DAYS: '1', RETENTION_ENABLED: 'false' });
  let t: WorkspaceTenant;
  const dirOf = (id: string) => suite.gw.app.get(WorkspaceLocator).dirOf('t-close', id);

  beforeAll(async () => {
    t = await workspaceTenant(suite.gw, 't-close', FILE_TOOLS);
  });

  it('DELETE closes: status CLOSED, workspace removed, later act 409 SESSION_CLOSED, file API 409, idempotent', async () => {
    const id = await t.newSession(['FILE_ROOM']);
    expect((await t.call(id, 'WRITE_FILE', { path: 'a.txt', content: 'x' })).status).toBe('COMPLETED');
    expect(existsSync(join(dirOf(id), 'a.txt'))).toBe(true);

    const stranger = await createKey(suite.gw, 't-close-other');
    await suite.gw.http.delete(`/api/v1/sessions/${id}`).set(stranger).expect(404);

    const closed = await suite.gw.http.delete(`/api/v1/sessions/${id}`).set(t.runtime).expect(200);
    expect(closed.body).toMatchObject({ id, status: 'CLOSED' });
    expect(existsSync(dirOf(id))).toBe(false);

    const act = await suite.gw.http
      .post(`/api/v1/sessions/${id}/act`)
      .set(t.runtime)
      .send({ iteration: 99, toolCalls: [{ id: 'after-close', name: 'LIST_FILES', arguments: {} }] })
      .expect(409);
    expect(act.body.error).toMatchObject({
      code: 'SESSION_CLOSED',
      message: `Session ${id} is closed; start a new session with POST /api/v1/sessions and submit the calls there.`,
    });
    const files = await suite.gw.http.get(`/api/v1/sessions/${id}/files`).set(t.runtime).expect(409);
    expect(files.body.error).toMatchObject({
      code: 'WORKSPACE_UNAVAILABLE',
      message: `Session ${id} is closed; its workspace was removed. Create a new session with POST /api/v1/sessions (capabilities ["FILE_ROOM"]) for a new workspace.`,
    });
    expect(existsSync(dirOf(id))).toBe(false);

    await suite.gw.http.delete(`/api/v1/sessions/${id}`).set(t.runtime).expect(200);
    // The events stay readable until retention.
    const events = await suite.gw.http.get(`/api/v1/sessions/${id}/events`).set(t.runtime).expect(200);
    expect(events.body.items.map((e: { type: string }) => e.type)).toContain('file.written');
  });

  it('a close while WRITE_FILE is in flight waits for it: the tool answers as usual, then the workspace is removed', async () => {
    const id = await t.newSession(['FILE_ROOM']);
    expect((await t.call(id, 'WRITE_FILE', { path: 'first.txt', content: 'x' })).status).toBe('COMPLETED');
    // The next write holds once it is in the workspace, until the close has asked for the workspace too.
    const files = suite.gw.app.get(WorkspaceFiles);
    const write = files.write.bind(files);
    let writeIsIn = false;
    let inFlight!: () => void;
    const isInFlight = new Promise<void>((resolve) => (inFlight = resolve));
    let goOn!: () => void;
    const goesOn = new Promise<void>((resolve) => (goOn = resolve));
    const held = jest.spyOn(files, 'write').mockImplementationOnce(async (...args) => {
      writeIsIn = true;
      inFlight();
      await goesOn;
      return write(...args);
    });
    const gate = suite.gw.app.get(WorkspaceGate);
    const enter = gate.run.bind(gate);
    let closeAsked!: () => void;
    const closeHasAsked = new Promise<void>((resolve) => (closeAsked = resolve));
    const asks = jest.spyOn(gate, 'run').mockImplementation((dir, kind, work) => {
      // The write is in (held above): the next one asking for this workspace is the close.
      if (dir === dirOf(id) && writeIsIn) closeAsked();
      return enter(dir, kind, work);
    });
    try {
      const writing = t.call(id, 'WRITE_FILE', { path: 'second.txt', content: 'y' });
      await isInFlight;
      const closing = suite.gw.http
        .delete(`/api/v1/sessions/${id}`)
        .set(t.runtime)
        .then((r) => r);
      await closeHasAsked;
      goOn();
      expect(await writing).toMatchObject({ status: 'COMPLETED', isError: false });
      expect((await closing).status).toBe(200);
    } finally {
      held.mockRestore();
      asks.mockRestore();
    }
    expect(existsSync(dirOf(id))).toBe(false);
  });

  it('a file tool claimed before the close and run after it answers that the workspace is gone, and leaves none', async () => {
    const id = await t.newSession(['FILE_ROOM']);
    expect((await t.call(id, 'WRITE_FILE', { path: 'first.txt', content: 'x' })).status).toBe('COMPLETED');
    // The call is claimed in the journal (the session was open); the close lands before the built-in runs.
    const dispatcher = suite.gw.app.get(WorkspaceBuiltinsDispatcher);
    const dispatch = dispatcher.dispatch.bind(dispatcher);
    const closeFirst = jest.spyOn(dispatcher, 'dispatch').mockImplementationOnce(async (...args) => {
      await suite.gw.http.delete(`/api/v1/sessions/${id}`).set(t.runtime).expect(200);
      return dispatch(...args);
    });
    try {
      const late = await t.call(id, 'WRITE_FILE', { path: 'late.txt', content: 'y' });
      expect(late).toMatchObject({ status: 'FAILED', isError: true });
      expect(late.content).toContain(
        'The workspace is gone: its session was closed (and the workspace removed) meanwhile; nothing was done. Work on in a new session (POST /api/v1/sessions with capabilities ["FILE_ROOM"]).',
      );
      expect(closeFirst).toHaveBeenCalledTimes(1);
    } finally {
      closeFirst.mockRestore();
    }
    expect(existsSync(dirOf(id))).toBe(false);
  });

  it('counts folders nested deeper than the host can name (as a command makes them) as full, and removes them: DELETE_FILE and the close', async () => {
    const id = await t.newSession(['FILE_ROOM']);
    expect((await t.call(id, 'WRITE_FILE', { path: 'a.txt', content: 'x' })).status).toBe('COMPLETED');
    // 20 folders of 250 characters: a host path of over 5,000 bytes, past PATH_MAX (4,096); made with relative steps.
    const name = 'd'.repeat(250);
    const nest = () =>
      execFileSync('bash', [
        '-c',
        `cd "$1" && for i in $(seq 20); do mkdir ${name} && cd ${name}; done && echo x > f`,
        'bash',
        dirOf(id),
      ]);
    nest();

    // What lies below cannot be measured: the workspace counts as full (no write), not as holding less than it does.
    const write = await t.call(id, 'WRITE_FILE', { path: 'b.txt', content: 'y' });
    expect(write.status).toBe('FAILED');
    expect(write.content).toContain('nested too deep to measure');
    const listing = await suite.gw.http.get(`/api/v1/sessions/${id}/files?recursive=true`).set(t.runtime).expect(200);
    expect(listing.body.truncated).toBe(true);
    const deleted = await t.call(id, 'DELETE_FILE', { path: name });
    expect(JSON.parse(deleted.content)).toEqual({ path: name, type: 'directory' });
    expect(existsSync(join(dirOf(id), name))).toBe(false);
    expect((await t.call(id, 'WRITE_FILE', { path: 'b.txt', content: 'y' })).status).toBe('COMPLETED');

    nest();
    await suite.gw.http.delete(`/api/v1/sessions/${id}`).set(t.runtime).expect(200);
    expect(existsSync(dirOf(id))).toBe(false);
  });

  it('GET /admin/sessions filters by status and agentId, per tenant', async () => {
    const open = await t.newSession(['FILE_ROOM']);
    const closed = await t.newSession([]);
    await suite.gw.http.delete(`/api/v1/sessions/${closed}`).set(t.runtime).expect(200);
    const other = await workspaceTenant(suite.gw, 't-close-2', []);
    const foreign = await other.newSession([]);

    const all = await suite.gw.http.get(`/api/v1/admin/sessions?agentId=${t.agentId}`).set(suite.gw.admin).expect(200);
    const ids = all.body.items.map((s: { id: string }) => s.id);
    expect(ids).toEqual(expect.arrayContaining([open, closed]));
    expect(ids).not.toContain(foreign);
    expect(all.body.items.find((s: { id: string }) => s.id === open)).toMatchObject({
      tenantId: 't-close',
      agentId: t.agentId,
      status: 'ACTIVE',
      capabilities: ['FILE_ROOM'],
    });

    const onlyClosed = await suite.gw.http
      .get(`/api/v1/admin/sessions?status=CLOSED&agentId=${t.agentId}`)
      .set(suite.gw.admin)
      .expect(200);
    expect(onlyClosed.body.items.every((s: { status: string }) => s.status === 'CLOSED')).toBe(true);
    expect(onlyClosed.body.items.map((s: { id: string }) => s.id)).toContain(closed);
    expect(onlyClosed.body.items.map((s: { id: string }) => s.id)).not.toContain(open);

    const tenantAdmin = await createKey(suite.gw, 't-close-2', 'admin');
    const own = await suite.gw.http.get('/api/v1/admin/sessions').set(tenantAdmin).expect(200);
    expect(own.body.items.map((s: { id: string }) => s.id)).toEqual([foreign]);
    await suite.gw.http.get('/api/v1/admin/sessions').set(t.runtime).expect(403);
    await suite.gw.http.get('/api/v1/admin/sessions?status=GONE').set(suite.gw.admin).expect(400);
  });

  it('retention deletes the events and the workspace of sessions closed past RETENTION_DAYS; artifacts stay', async () => {
    const old = await t.newSession(['FILE_ROOM']);
    await t.call(old, 'WRITE_FILE', { path: 'keep.txt', content: 'published' });
    const artifact = JSON.parse((await t.call(old, 'PUBLISH_FILE', { path: 'keep.txt' })).content);
    const recent = await t.newSession(['FILE_ROOM']);
    await t.call(recent, 'WRITE_FILE', { path: 'r.txt', content: 'r' });
    for (const id of [old, recent]) await suite.gw.http.delete(`/api/v1/sessions/${id}`).set(t.runtime).expect(200);
    // A workspace left behind (e.g. a close hook that failed, or another instance recreated it) goes too.
    mkdirSync(dirOf(old), { recursive: true });
    writeFileSync(join(dirOf(old), 'leftover'), 'x');
    mkdirSync(dirOf(recent), { recursive: true });
    const db = suite.gw.app.get(DataSource);
    await db.query('UPDATE agent_session SET updated_at = ? WHERE id = ?', [Date.now() - 2 * DAY, old]);

    const report = await suite.gw.app.get(RetentionService).purge();
    expect(report.sessionEvents).toBeGreaterThanOrEqual(2); // file.written, artifact.published (+ tool events)
    expect(report.workspaces).toBeGreaterThanOrEqual(1);
    expect(existsSync(dirOf(old))).toBe(false);
    expect(existsSync(dirOf(recent))).toBe(true);
    const [{ n }] = await db.query('SELECT COUNT(*) AS n FROM session_event WHERE session_id = ?', [old]);
    expect(Number(n)).toBe(0);
    const [{ m }] = await db.query('SELECT COUNT(*) AS m FROM session_event WHERE session_id = ?', [recent]);
    expect(Number(m)).toBeGreaterThan(0);
    await suite.gw.http.get(`/api/v1/sessions/${old}`).set(t.runtime).expect(404);
    await suite.gw.http.get(`/api/v1/artifacts/${artifact.artifactId}`).set(t.runtime).expect(200);
  });
});
