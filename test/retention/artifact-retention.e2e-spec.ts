import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { RetentionService } from '@app/modules/retention/retention.service';
import { WorkspaceLocator } from '@app/modules/workspace/workspace.locator';
import { gatewayForSuite, type TestGateway } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';
import {
  FILE_TOOLS,
  workspaceRootForSuite,
  workspaceTenant,
  type WorkspaceTenant,
} from '@test/workspace/workspace-test-kit';

const DAY = 24 * 60 * 60 * 1000;

/** Publishes `path` (written first) through PUBLISH_FILE; returns the artifact id. */
async function publish(t: WorkspaceTenant, sessionId: string, path: string): Promise<string> {
  await t.call(sessionId, 'WRITE_FILE', { path, content: `contents of ${path}` });
  const published = await t.call(sessionId, 'PUBLISH_FILE', { path });
  expect(published.status).toBe('COMPLETED');
  return (JSON.parse(published.content) as { artifactId: string }).artifactId;
}

/** Moves an artifact's publication into the past (no API can). */
async function backdate(gw: TestGateway, artifactId: string, createdAt: number): Promise<void> {
  await gw.app.get(DataSource).query('UPDATE artifact SET created_at = ? WHERE id = ?', [createdAt, artifactId]);
}

function storedFile(gw: TestGateway, tenantId: string, artifactId: string): string {
  return join(gw.app.get(WorkspaceLocator).artifactDir(tenantId), artifactId);
}

describeEachDialect('artifact retention (ARTIFACTS_RETENTION_DAYS)', (dialect) => {
  const suite = gatewayForSuite(dialect, {
    WORKSPACE_ROOT: workspaceRootForSuite(),
    ARTIFACTS_RETENTION_DAYS: '30',
    RETENTION_DAYS: '30',
    RETENTION_ENABLED: 'false',
  });
  let acme: WorkspaceTenant;
  let globex: WorkspaceTenant;

  beforeAll(async () => {
    acme = await workspaceTenant(suite.gw, 't-ret-acme', FILE_TOOLS);
    globex = await workspaceTenant(suite.gw, 't-ret-globex', FILE_TOOLS);
  });

  it('deletes artifacts published longer ago than that, rows and files, of every tenant, whatever their session', async () => {
    const now = Date.now();
    const acmeSession = await acme.newSession();
    const globexSession = await globex.newSession();
    const acmeOld = await publish(acme, acmeSession, 'old.md');
    const acmeRecent = await publish(acme, acmeSession, 'recent.md');
    const globexOld = await publish(globex, globexSession, 'old.md');
    await backdate(suite.gw, acmeOld, now - 31 * DAY);
    await backdate(suite.gw, acmeRecent, now - 29 * DAY);
    await backdate(suite.gw, globexOld, now - 31 * DAY);

    const report = await suite.gw.app.get(RetentionService).purge(now);

    expect(report.artifacts).toBe(2);
    for (const [tenant, id] of [
      [acme, acmeOld],
      [globex, globexOld],
    ] as const) {
      await suite.gw.http.get(`/api/v1/artifacts/${id}`).set(tenant.runtime).expect(404);
      await suite.gw.http.get(`/api/v1/artifacts/${id}/content`).set(tenant.runtime).expect(404);
    }
    expect(existsSync(storedFile(suite.gw, 't-ret-acme', acmeOld))).toBe(false);
    expect(existsSync(storedFile(suite.gw, 't-ret-globex', globexOld))).toBe(false);
    // The recent one stays whole, and its session (ACTIVE) was never the criterion.
    await suite.gw.http.get(`/api/v1/artifacts/${acmeRecent}`).set(acme.runtime).expect(200);
    expect(readFileSync(storedFile(suite.gw, 't-ret-acme', acmeRecent), 'utf8')).toBe('contents of recent.md');
  });

  it('goes through more than one batch in a run, and a second run finds nothing', async () => {
    const now = Date.now();
    const tenantId = 't-ret-bulk';
    const dir = suite.gw.app.get(WorkspaceLocator).artifactDir(tenantId);
    mkdirSync(dir, { recursive: true });
    const ids = Array.from({ length: 1_203 }, () => randomUUID());
    for (const id of ids) writeFileSync(join(dir, id), 'x');
    for (let i = 0; i < ids.length; i += 200) {
      const rows = ids
        .slice(i, i + 200)
        .map((id, k) => [id, tenantId, randomUUID(), 'a.txt', 'a.txt', null, 1, 'f'.repeat(64), now - 40 * DAY + k]);
      await suite.gw.app
        .get(DataSource)
        .query(
          `INSERT INTO artifact (id, tenant_id, session_id, name, source_path, title, size, sha256, created_at) VALUES ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
          rows.flat(),
        );
    }

    const retention = suite.gw.app.get(RetentionService);
    expect((await retention.purge(now)).artifacts).toBe(ids.length);
    expect((await retention.purge(now)).artifacts).toBe(0);
    const [left] = await suite.gw.app
      .get(DataSource)
      .query('SELECT COUNT(*) AS n FROM artifact WHERE tenant_id = ?', [tenantId]);
    expect(Number(left.n)).toBe(0);
    expect(ids.filter((id) => existsSync(join(dir, id)))).toEqual([]);
  });

  it('removes files a crash left behind once a day old: artifact files no row names and staged files; nothing else', async () => {
    const now = Date.now();
    const locator = suite.gw.app.get(WorkspaceLocator);
    const session = await acme.newSession();
    const dayAndMore = (now - DAY - 60_000) / 1000;
    const plant = (path: string, old: boolean) => {
      writeFileSync(path, 'left behind');
      if (old) utimesSync(path, dayAndMore, dayAndMore);
      return path;
    };
    // A published artifact whose file is old: its row names it.
    const kept = await publish(acme, session, 'kept.md');
    utimesSync(storedFile(suite.gw, 't-ret-acme', kept), dayAndMore, dayAndMore);
    // A publish cut short between its file and its row (or a delete between its row and its file).
    const dir = locator.artifactDir('t-ret-acme');
    const orphan = plant(join(dir, randomUUID()), true);
    const young = plant(join(dir, randomUUID()), false); // its row may be committing now
    const foreign = plant(join(dir, 'notes.txt'), true); // not named as the gateway names artifacts
    // Uploads and publishes cut short before their rename, and a folder someone made there.
    mkdirSync(locator.stagingDir(), { recursive: true });
    const staged = plant(join(locator.stagingDir(), randomUUID()), true);
    const staging = plant(join(locator.stagingDir(), randomUUID()), false);
    const folder = join(locator.stagingDir(), 'kept-folder');
    mkdirSync(folder, { recursive: true });
    utimesSync(folder, dayAndMore, dayAndMore);

    const report = await suite.gw.app.get(RetentionService).purge(now);

    expect(report.orphanFiles).toBe(2);
    expect([orphan, staged].filter((p) => existsSync(p))).toEqual([]);
    expect([young, foreign, staging, folder].filter((p) => !existsSync(p))).toEqual([]);
    expect(readFileSync(storedFile(suite.gw, 't-ret-acme', kept), 'utf8')).toBe('contents of kept.md');
    await suite.gw.http.get(`/api/v1/artifacts/${kept}/content`).set(acme.runtime).expect(200);
    expect((await suite.gw.app.get(RetentionService).purge(now)).orphanFiles).toBe(0);
  });
});

describe('artifact retention off (ARTIFACTS_RETENTION_DAYS=0, the default)', () => {
  const suite = gatewayForSuite('sqlite', { WORKSPACE_ROOT: workspaceRootForSuite(), RETENTION_ENABLED: 'false' });

  it('keeps artifacts of any age', async () => {
    const t = await workspaceTenant(suite.gw, 't-ret-keep', FILE_TOOLS);
    const id = await publish(t, await t.newSession(), 'kept.md');
    await backdate(suite.gw, id, Date.now() - 3_650 * DAY);

    expect((await suite.gw.app.get(RetentionService).purge()).artifacts).toBe(0);

    await suite.gw.http.get(`/api/v1/artifacts/${id}`).set(t.runtime).expect(200);
    expect(existsSync(storedFile(suite.gw, 't-ret-keep', id))).toBe(true);
  });
});
