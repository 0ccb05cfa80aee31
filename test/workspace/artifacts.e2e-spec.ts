import { holdReadsTogether } from '@test/support/read-barrier';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKey, gatewayForSuite } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';
import { WorkspaceLocator } from '@app/modules/workspace/workspace.locator';
import { ArtifactsService } from '@app/modules/workspace/artifacts.service';
import { FILE_TOOLS, workspaceRootForSuite, workspaceTenant, type WorkspaceTenant } from './workspace-test-kit';

const binary = (req: import('supertest').Test) =>
  req.buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  });

describeEachDialect('PUBLISH_FILE and artifacts', (dialect) => {
  const root = workspaceRootForSuite();
  const suite = gatewayForSuite(dialect, { WORKSPACE_ROOT: root });
  let t: WorkspaceTenant;
  let sessionId: string;

  beforeAll(async () => {
    t = await workspaceTenant(suite.gw, 't-art', FILE_TOOLS);
    sessionId = await t.newSession(['FILE_ROOM']);
  });

  it('answers a stored artifact found shorter than its size with an error before any byte, never a short body', async () => {
    const session = await t.newSession(['FILE_ROOM']);
    await t.call(session, 'WRITE_FILE', { path: 'damaged.txt', content: 'all of it\n' });
    const { artifactId } = JSON.parse((await t.call(session, 'PUBLISH_FILE', { path: 'damaged.txt' })).content);
    const stored = join(suite.gw.app.get(WorkspaceLocator).artifactDir('t-art'), artifactId);
    chmodSync(stored, 0o640);
    truncateSync(stored, 3);
    const res = await suite.gw.http.get(`/api/v1/artifacts/${artifactId}/content`).set(t.runtime).expect(500);
    expect(res.body.error).toEqual({
      code: 'INTERNAL',
      message: `The stored file of artifact ${artifactId} holds 3 of the 10 bytes it was published with: it is damaged. Publish the file again with PUBLISH_FILE.`,
      details: {},
    });
  });

  it('publishes an immutable copy with sha256 and size; metadata and content are tenant-scoped', async () => {
    const text = 'report v1 — ünïcode\n';
    await t.call(sessionId, 'WRITE_FILE', { path: 'out/report.md', content: text });
    const published = await t.call(sessionId, 'PUBLISH_FILE', { path: 'out/report.md', title: 'The report' });
    expect(published.status).toBe('COMPLETED');
    const sha256 = createHash('sha256').update(text).digest('hex');
    const answer = JSON.parse(published.content);
    expect(answer).toEqual({
      artifactId: expect.any(String),
      name: 'report.md',
      size: Buffer.byteLength(text),
      sha256,
    });

    // Changing or deleting the workspace file does not change the artifact.
    await t.call(sessionId, 'WRITE_FILE', { path: 'out/report.md', content: 'v2' });
    await t.call(sessionId, 'DELETE_FILE', { path: 'out' });

    const meta = await suite.gw.http.get(`/api/v1/artifacts/${answer.artifactId}`).set(t.runtime).expect(200);
    expect(meta.body).toEqual({
      artifactId: answer.artifactId,
      sessionId,
      name: 'report.md',
      title: 'The report',
      path: 'out/report.md',
      size: Buffer.byteLength(text),
      sha256,
      createdAt: expect.stringMatching(/^\d{4}-/),
    });
    const content = await binary(suite.gw.http.get(`/api/v1/artifacts/${answer.artifactId}/content`).set(t.runtime));
    expect(content.status).toBe(200);
    expect(content.headers['content-disposition']).toContain('report.md');
    expect(content.headers['x-content-sha256']).toBe(sha256);
    expect((content.body as Buffer).toString('utf8')).toBe(text);

    const stored = join(suite.gw.app.get(WorkspaceLocator).artifactDir('t-art'), answer.artifactId);
    expect(statSync(stored).mode & 0o222).toBe(0);

    const events = await suite.gw.http.get(`/api/v1/sessions/${sessionId}/events`).set(t.runtime).expect(200);
    const event = events.body.items.find((e: { type: string }) => e.type === 'artifact.published');
    expect(event.data).toEqual({
      artifactId: answer.artifactId,
      name: 'report.md',
      path: 'out/report.md',
      size: Buffer.byteLength(text),
      sha256,
    });

    const stranger = await createKey(suite.gw, 't-art-other');
    await suite.gw.http.get(`/api/v1/artifacts/${answer.artifactId}`).set(stranger).expect(404);
    await suite.gw.http.get(`/api/v1/artifacts/${answer.artifactId}/content`).set(stranger).expect(404);
    const tenantAdmin = await createKey(suite.gw, 't-art', 'admin');
    await suite.gw.http.get(`/api/v1/artifacts/${answer.artifactId}`).set(tenantAdmin).expect(200);
    await suite.gw.http.get(`/api/v1/artifacts/${answer.artifactId}`).set(suite.gw.admin).expect(200);
    await suite.gw.http.get('/api/v1/artifacts/no-such-id').set(t.runtime).expect(404);
  });

  it('answers 404, not 500, for content whose file is gone while its row is still there (a delete in progress)', async () => {
    await t.call(sessionId, 'WRITE_FILE', { path: 'gone.txt', content: 'soon gone' });
    const { artifactId } = JSON.parse((await t.call(sessionId, 'PUBLISH_FILE', { path: 'gone.txt' })).content);
    // What a reader sees between DELETE's row delete and file removal, or when a file was lost on disk.
    rmSync(join(suite.gw.app.get(WorkspaceLocator).artifactDir('t-art'), artifactId), { force: true });
    const res = await suite.gw.http.get(`/api/v1/artifacts/${artifactId}/content`).set(t.runtime).expect(404);
    expect(res.body.error).toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining(`The file of artifact ${artifactId} is gone`),
    });
  });

  it('publishes a file larger than WORKSPACE_MAX_FILE_BYTES (a command may write up to SANDBOX_MAX_FILE_MB)', async () => {
    const dir = suite.gw.app.get(WorkspaceLocator).dirOf('t-art', sessionId);
    mkdirSync(dir, { recursive: true });
    const big = Buffer.alloc(21 * 1024 * 1024, 'log line\n');
    writeFileSync(join(dir, 'big.log'), big);
    const published = await t.call(sessionId, 'PUBLISH_FILE', { path: 'big.log' });
    expect(published.status).toBe('COMPLETED');
    const answer = JSON.parse(published.content);
    expect(answer).toMatchObject({
      name: 'big.log',
      size: big.length,
      sha256: createHash('sha256').update(big).digest('hex'),
    });
    const content = await binary(suite.gw.http.get(`/api/v1/artifacts/${answer.artifactId}/content`).set(t.runtime));
    expect((content.body as Buffer).equals(big)).toBe(true);
    await t.call(sessionId, 'DELETE_FILE', { path: 'big.log' });
  });
  it('refuses to publish a missing file or a folder, as a FAILED result naming the path', async () => {
    const missing = await t.call(sessionId, 'PUBLISH_FILE', { path: 'nope.txt' });
    expect(missing).toMatchObject({ status: 'FAILED', isError: true });
    expect(missing.content).toContain('"nope.txt"');
    await t.call(sessionId, 'WRITE_FILE', { path: 'dir/x.txt', content: 'x' });
    const folder = await t.call(sessionId, 'PUBLISH_FILE', { path: 'dir' });
    expect(folder.content).toContain('"dir" is a folder, not a file; name a file in it (LIST_FILES with path "dir"');
  });

  // Stored, half a character became U+FFFD: one on MySQL, three on SQLite, so the title read back differed by dialect.
  it('refuses a title holding half of a character (a lone surrogate), publishing nothing', async () => {
    const session = await t.newSession(['FILE_ROOM']);
    await t.call(session, 'WRITE_FILE', { path: 'q3.md', content: 'numbers' });
    const halved = await t.call(session, 'PUBLISH_FILE', { path: 'q3.md', title: 'Q3 \ud83d' });
    expect(halved).toMatchObject({ status: 'FAILED', isError: true });
    expect(halved.content).toContain('title holds half of a character (a lone UTF-16 surrogate');
    const whole = await t.call(session, 'PUBLISH_FILE', { path: 'q3.md', title: 'Q3 \ud83d\ude00' });
    const { artifactId } = JSON.parse(whole.content);
    const read = await suite.gw.http.get(`/api/v1/artifacts/${artifactId}`).set(t.runtime).expect(200);
    expect(read.body.title).toBe('Q3 \u{1F600}');
    const events = await suite.gw.http.get(`/api/v1/sessions/${session}/events?after=0&limit=100`).set(t.runtime);
    expect(events.body.items.filter((e: { type: string }) => e.type === 'artifact.published')).toHaveLength(1);
  });
});

describeEachDialect('artifacts within ARTIFACTS_MAX_BYTES, deleted by a tenant admin', (dialect) => {
  const suite = gatewayForSuite(dialect, { WORKSPACE_ROOT: workspaceRootForSuite(), ARTIFACTS_MAX_BYTES: '10' });
  let t: WorkspaceTenant;
  let sessionId: string;

  beforeAll(async () => {
    t = await workspaceTenant(suite.gw, 't-art-quota', FILE_TOOLS);
    sessionId = await t.newSession(['FILE_ROOM']);
    await t.call(sessionId, 'WRITE_FILE', { path: 'six.txt', content: '123456' });
  });

  it("refuses a publish past the tenant's quota until an admin deletes an artifact", async () => {
    const first = JSON.parse((await t.call(sessionId, 'PUBLISH_FILE', { path: 'six.txt' })).content);
    const refused = await t.call(sessionId, 'PUBLISH_FILE', { path: 'six.txt' });
    expect(refused).toMatchObject({ status: 'FAILED', isError: true });
    expect(refused.content).toContain('hold 6 bytes and this file has 6, more than ARTIFACTS_MAX_BYTES (10)');

    await suite.gw.http.delete(`/api/v1/artifacts/${first.artifactId}`).set(t.runtime).expect(403);
    const otherAdmin = await createKey(suite.gw, 't-other', 'admin');
    await suite.gw.http.delete(`/api/v1/artifacts/${first.artifactId}`).set(otherAdmin).expect(404);
    const admin = await createKey(suite.gw, 't-art-quota', 'admin');
    const deleted = await suite.gw.http.delete(`/api/v1/artifacts/${first.artifactId}`).set(admin).expect(200);
    expect(deleted.body).toMatchObject({ artifactId: first.artifactId, size: 6 });
    await suite.gw.http.get(`/api/v1/artifacts/${first.artifactId}`).set(admin).expect(404);
    const locator = suite.gw.app.get(WorkspaceLocator);
    expect(() => statSync(join(locator.artifactDir('t-art-quota'), first.artifactId))).toThrow(/ENOENT/);

    expect((await t.call(sessionId, 'PUBLISH_FILE', { path: 'six.txt' })).status).toBe('COMPLETED');
  });

  it('answers one of several DELETEs of an artifact at the same moment with 200, the others with 404', async () => {
    const admin = await createKey(suite.gw, 't-art-quota', 'admin');
    await t.call(sessionId, 'WRITE_FILE', { path: 'one.txt', content: '1' });
    const { artifactId } = JSON.parse((await t.call(sessionId, 'PUBLISH_FILE', { path: 'one.txt' })).content);

    // Every request reads the artifact before any deletes it, as requests on two instances (or on MySQL's pool) can.
    // `load` is private: the service is reached as a plain object.
    const service = suite.gw.app.get<ArtifactsService, { load: unknown }>(ArtifactsService);
    const restore = holdReadsTogether(service, 'load', 4);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => suite.gw.http.delete(`/api/v1/artifacts/${artifactId}`).set(admin)),
    ).finally(restore);

    expect(answers.map((r) => r.status).sort()).toEqual([200, 404, 404, 404]);
    expect(answers.find((r) => r.status === 200)!.body).toMatchObject({ artifactId, size: 1 });
    expect(answers.find((r) => r.status === 404)!.body.error.code).toBe('NOT_FOUND');
    await suite.gw.http.get(`/api/v1/artifacts/${artifactId}`).set(admin).expect(404);
    const locator = suite.gw.app.get(WorkspaceLocator);
    expect(() => statSync(join(locator.artifactDir('t-art-quota'), artifactId))).toThrow(/ENOENT/);
  });

  it('lets only one of two publishes at the same moment pass the quota', async () => {
    const racer = await workspaceTenant(suite.gw, 't-art-race', FILE_TOOLS);
    const sessions = [await racer.newSession(['FILE_ROOM']), await racer.newSession(['FILE_ROOM'])];
    for (const id of sessions) await racer.call(id, 'WRITE_FILE', { path: 'six.txt', content: '123456' });
    const results = await Promise.all(sessions.map((id) => racer.call(id, 'PUBLISH_FILE', { path: 'six.txt' })));
    expect(results.map((r) => r.status).sort()).toEqual(['COMPLETED', 'FAILED']);
    expect(results.find((r) => r.status === 'FAILED')!.content).toContain('more than ARTIFACTS_MAX_BYTES (10)');
    const locator = suite.gw.app.get(WorkspaceLocator);
    expect(readdirSync(locator.artifactDir('t-art-race'))).toHaveLength(1);
  });
});

describeEachDialect('empty artifacts within ARTIFACTS_MAX_COUNT', (dialect) => {
  const suite = gatewayForSuite(dialect, { WORKSPACE_ROOT: workspaceRootForSuite(), ARTIFACTS_MAX_COUNT: '2' });

  it('refuses a publish past the count, empty files included, until an admin deletes an artifact', async () => {
    const t = await workspaceTenant(suite.gw, 't-art-count', FILE_TOOLS);
    const sessionId = await t.newSession(['FILE_ROOM']);
    await t.call(sessionId, 'WRITE_FILE', { path: 'empty.txt', content: '' });
    const published = [];
    for (let i = 0; i < 2; i++) {
      const res = await t.call(sessionId, 'PUBLISH_FILE', { path: 'empty.txt' });
      expect(res.status).toBe('COMPLETED');
      published.push(JSON.parse(res.content) as { artifactId: string; size: number });
    }
    expect(published.map((a) => a.size)).toEqual([0, 0]);

    const refused = await t.call(sessionId, 'PUBLISH_FILE', { path: 'empty.txt' });
    expect(refused).toMatchObject({ status: 'FAILED', isError: true });
    expect(refused.content).toContain('holds 2 artifacts, as many as ARTIFACTS_MAX_COUNT (2) allows');
    expect(refused.content).toContain('DELETE /api/v1/artifacts/{id}');
    // Nothing of the refused one stays: no file beside the two, no event.
    const locator = suite.gw.app.get(WorkspaceLocator);
    expect(readdirSync(locator.artifactDir('t-art-count')).sort()).toEqual(published.map((a) => a.artifactId).sort());
    const events = await suite.gw.http.get(`/api/v1/sessions/${sessionId}/events?limit=1000`).set(t.runtime);
    expect(events.body.items.filter((e: { type: string }) => e.type === 'artifact.published')).toHaveLength(2);

    const admin = await createKey(suite.gw, 't-art-count', 'admin');
    await suite.gw.http.delete(`/api/v1/artifacts/${published[0].artifactId}`).set(admin).expect(200);
    expect((await t.call(sessionId, 'PUBLISH_FILE', { path: 'empty.txt' })).status).toBe('COMPLETED');
    // Another tenant's count is its own.
    const other = await workspaceTenant(suite.gw, 't-art-count-2', FILE_TOOLS);
    const otherSession = await other.newSession(['FILE_ROOM']);
    await other.call(otherSession, 'WRITE_FILE', { path: 'empty.txt', content: '' });
    expect((await other.call(otherSession, 'PUBLISH_FILE', { path: 'empty.txt' })).status).toBe('COMPLETED');
  });
});
