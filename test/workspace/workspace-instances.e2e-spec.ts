import { startTestGateway, type TestGateway } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, describeEachDialect, type TestDatabase } from '@test/support/test-database';
import { FILE_TOOLS, workspaceRootForSuite, workspaceTenant } from './workspace-test-kit';

describeEachDialect('two instances sharing WORKSPACE_ROOT and the database', (dialect) => {
  let db: TestDatabase;
  let a: TestGateway;
  let b: TestGateway;
  /** An instance without a sandbox (SANDBOX_DRIVER=none) on the same database and workspaces. */
  let c: TestGateway;

  beforeAll(async () => {
    db = await createTestDatabaseUrl(dialect);
    const env = { WORKSPACE_ROOT: workspaceRootForSuite() };
    a = await startTestGateway(db.url, env);
    b = await startTestGateway(db.url, env);
    c = await startTestGateway(db.url, { ...env, SANDBOX_DRIVER: 'none' });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await c?.close();
    await db?.drop();
  });

  it("serves one session's workspace from either instance, and a close on one is seen by the other", async () => {
    const t = await workspaceTenant(a, 't-two', FILE_TOOLS);
    const sessionId = await t.newSession(['FILE_ROOM']);
    await a.http
      .put(`/api/v1/sessions/${sessionId}/files/content?path=shared/in.txt`)
      .set(t.runtime)
      .set('content-type', 'application/octet-stream')
      .send(Buffer.from('uploaded to A'))
      .expect(201);

    const onB = await b.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(t.runtime)
      .send({
        iteration: 1,
        toolCalls: [
          { id: 'b-read', name: 'READ_FILE', arguments: { path: 'shared/in.txt' } },
          { id: 'b-write', name: 'WRITE_FILE', arguments: { path: 'shared/out.txt', content: 'written on B' } },
        ],
      })
      .expect(200);
    expect(JSON.parse(onB.body.results[0].content).content).toBe('uploaded to A');
    expect(onB.body.results[1].status).toBe('COMPLETED');

    const listed = await a.http.get(`/api/v1/sessions/${sessionId}/files?path=shared`).set(t.runtime).expect(200);
    expect(listed.body.items.map((e: { path: string }) => e.path)).toEqual(['shared/in.txt', 'shared/out.txt']);
    const events = await a.http.get(`/api/v1/sessions/${sessionId}/events`).set(t.runtime).expect(200);
    const written = events.body.items.filter((e: { type: string }) => e.type === 'file.written');
    expect(written.map((e: { data: { path: string } }) => e.data.path)).toEqual(['shared/in.txt', 'shared/out.txt']);
    // One ordered sequence per session, whichever instance appended.
    const seqs = events.body.items.map((e: { seq: number }) => e.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));

    await b.http.delete(`/api/v1/sessions/${sessionId}`).set(t.runtime).expect(200);
    const after = await a.http.get(`/api/v1/sessions/${sessionId}/files`).set(t.runtime).expect(409);
    expect(after.body.error.code).toBe('WORKSPACE_UNAVAILABLE');
  });

  it('a SANDBOX session served by an instance without a sandbox: RUN_COMMAND hidden there with the reason', async () => {
    const t = await workspaceTenant(a, 't-nosandbox', [...FILE_TOOLS, 'RUN_COMMAND']);
    const sessionId = await t.newSession(['SANDBOX', 'FILE_ROOM']);
    const act = (gw: TestGateway, id: string) =>
      gw.http
        .post(`/api/v1/sessions/${sessionId}/act`)
        .set(t.runtime)
        .send({ iteration: 1, toolCalls: [{ id, name: 'RUN_COMMAND', arguments: { command: 'echo hi' } }] })
        .expect(200);
    const onC = (await act(c, 'c-run')).body.results[0];
    expect(onC).toMatchObject({ status: 'FAILED', errorClass: 'NOT_VISIBLE', attempts: 0 });
    expect(onC.content).toContain('requires SANDBOX, which this gateway instance cannot provide: SANDBOX_DRIVER=none');
    const specs = await c.http
      .post(`/api/v1/agents/${t.agentId}/tool-specs`)
      .set(t.runtime)
      .send({ userId: 'u1', permissions: [], sessionId, explain: true })
      .expect(200);
    const names = specs.body.tools.map((tool: { function: { name: string } }) => tool.function.name);
    expect(names).toContain('READ_FILE');
    expect(names).not.toContain('RUN_COMMAND');
    // The instance with a sandbox runs it.
    const onA = (await act(a, 'a-run')).body.results[0];
    expect(onA).toMatchObject({ status: 'COMPLETED' });
    expect(JSON.parse(onA.content)).toMatchObject({ exitCode: 0, stdout: 'hi\n' });
  });
});
