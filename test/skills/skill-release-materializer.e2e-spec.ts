import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
// The module object itself (what the materializer calls), so a spy on it is seen there.
import fsPromises from 'node:fs/promises';
import { mkdir, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKey, gatewayForSuite, type TestGateway } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';
import { skillMd, uploadJsonSkill } from '@test/support/skill-fixture';
import { SkillReleaseMaterializer, UNUSED_RELEASE_MS } from '@app/modules/skills/skill-release.materializer';
import { RetentionService } from '@app/modules/retention/retention.service';
import { SkillsRepository } from '@app/modules/skills/skills.repository';
import { GATEWAY_CONFIG, type GatewayConfig } from '@app/config/gateway-config';

const CACHE = mkdtempSync(join(tmpdir(), 'gw-skill-cache-'));
const BIG = 'ä'.repeat(30000);

describeEachDialect('SkillReleaseMaterializer: a release as a read-only host directory', (dialect) => {
  const suite = gatewayForSuite(dialect, { SKILL_CACHE_DIR: join(CACHE, dialect) });
  let gw: TestGateway;
  let admin: { Authorization: string };
  let skillId: string;

  beforeAll(async () => {
    gw = suite.gw;
    admin = await createKey(gw, 'mat', 'admin');
    skillId = (
      await uploadJsonSkill(gw, admin, {
        tenantId: 'mat',
        skillContent: skillMd('mat-skill', 'Materialized'),
        files: [
          { path: 'scripts/run.sh', content: '#!/bin/sh\necho hi\n' },
          { path: 'references/big.md', content: BIG },
        ],
      })
    ).id;
    await gw.http
      .post(`/api/v1/admin/skills/${skillId}/releases`)
      .set(admin)
      .send({ skillContent: skillMd('mat-skill', 'Second') })
      .expect(201);
  });

  afterAll(async () => {
    execFileSync('chmod', ['-R', 'u+w', CACHE]); // the releases are read-only on disk
    await rm(CACHE, { recursive: true, force: true });
  });

  it('writes every file of the current release, read-only, scripts executable', async () => {
    const dir = await gw.app.get(SkillReleaseMaterializer).materialize({ tenantId: 'mat', name: 'mat-skill' });
    expect(dir).toBe(join(CACHE, dialect, skillId, '1'));
    expect(await readFile(join(dir, 'references/big.md'), 'utf8')).toBe(BIG);
    expect(await readFile(join(dir, 'SKILL.md'), 'utf8')).toContain('name: mat-skill');
    expect((await stat(join(dir, 'references/big.md'))).mode & 0o777).toBe(0o444);
    expect((await stat(join(dir, 'scripts/run.sh'))).mode & 0o777).toBe(0o555);
    expect((await stat(join(dir, 'scripts'))).mode & 0o777).toBe(0o555);
    expect((await stat(dir)).mode & 0o777).toBe(0o555);
  });

  it('builds each release once for concurrent callers, in this instance and another', async () => {
    const mine = gw.app.get(SkillReleaseMaterializer);
    const another = new SkillReleaseMaterializer(
      gw.app.get(SkillsRepository),
      gw.app.get<GatewayConfig>(GATEWAY_CONFIG),
    );
    const dirs = await Promise.all([
      ...Array.from({ length: 4 }, () => mine.materialize({ tenantId: 'mat', skillId, version: 2 })),
      ...Array.from({ length: 4 }, () => another.materialize({ tenantId: 'mat', skillId, version: 2 })),
    ]);
    expect(new Set(dirs)).toEqual(new Set([join(CACHE, dialect, skillId, '2')]));
    expect((await readdir(join(CACHE, dialect, skillId))).sort()).toEqual(['1', '2']);
    expect(await readdir(dirs[0])).toEqual(['SKILL.md']);
  });

  it("refuses another tenant's skill and a release that does not exist", async () => {
    const materializer = gw.app.get(SkillReleaseMaterializer);
    await expect(materializer.materialize({ tenantId: 'intruder', skillId })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(materializer.materialize({ tenantId: 'intruder', name: 'mat-skill' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(materializer.materialize({ tenantId: 'mat', skillId, version: 7 })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('removes the release directories of a deleted skill', async () => {
    const doomed = (
      await uploadJsonSkill(gw, admin, { tenantId: 'mat', skillContent: skillMd('doomed-skill', 'Going away') })
    ).id;
    const dir = await gw.app.get(SkillReleaseMaterializer).materialize({ tenantId: 'mat', skillId: doomed });
    expect((await stat(dir)).isDirectory()).toBe(true);
    await gw.http.delete(`/api/v1/admin/skills/${doomed}`).set(admin).expect(200);
    await expect(stat(join(CACHE, dialect, doomed))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await readdir(join(CACHE, dialect, skillId))).sort()).toEqual(['1', '2']); // other skills' stay
  });

  it('the retention job prunes releases no one uses, abandoned builds and deleted skills, and nothing else', async () => {
    const root = join(CACHE, dialect);
    const materializer = gw.app.get(SkillReleaseMaterializer);
    const now = Date.now();
    const longAgo = (now - UNUSED_RELEASE_MS - 60_000) / 1000;
    const backdate = (path: string) => utimes(path, longAgo, longAgo);
    // Each use of a release stamps its directory, built or not.
    const second = join(root, skillId, '2');
    await backdate(second);
    await materializer.materialize({ tenantId: 'mat', skillId, version: 2 });
    expect((await stat(second)).mtimeMs).toBeGreaterThan(now - 60_000);
    // Releases 1 (current) and 2 of the skill, both last used long ago.
    await backdate(join(root, skillId, '1'));
    await backdate(second);
    // A build a crash abandoned an hour ago and one going on now; a skill deleted while the cache was unreachable.
    const abandoned = join(root, skillId, `3.tmp-${randomUUID()}`);
    const building = join(root, skillId, `4.tmp-${randomUUID()}`);
    await mkdir(join(abandoned, 'scripts'), { recursive: true });
    await mkdir(building);
    await utimes(abandoned, (now - 2 * 60 * 60 * 1000) / 1000, (now - 2 * 60 * 60 * 1000) / 1000);
    const gone = join(root, randomUUID());
    await mkdir(join(gone, '1'), { recursive: true });
    await backdate(join(gone, '1'));
    // Another database's skill, in use (a gateway on another database may share the folder).
    const elsewhere = join(root, randomUUID());
    await mkdir(join(elsewhere, '1'), { recursive: true });
    // Not the cache's: SKILL_CACHE_DIR may be shared with other things.
    await writeFile(join(root, 'notes.txt'), 'keep me');
    await mkdir(join(root, 'other', '1'), { recursive: true });
    await writeFile(join(root, skillId, 'README'), 'keep me too');

    const report = await gw.app.get(RetentionService).purge(now);

    expect(report.skillReleases).toBe(3); // release 2, the abandoned build, the deleted skill's release
    expect((await readdir(join(root, skillId))).sort()).toEqual(['1', 'README', building.split('/').pop()].sort());
    await expect(stat(gone)).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await readdir(root)).sort()).toEqual(['notes.txt', 'other', skillId, elsewhere.split('/').pop()].sort());
    expect(await readdir(join(root, 'other'))).toEqual(['1']);
    // The pruned release is built again when a session pinned to it asks.
    expect(await materializer.materialize({ tenantId: 'mat', skillId, version: 2 })).toBe(second);
    expect(await readdir(second)).toEqual(['SKILL.md']);
    // Used just now: not pruned although not current.
    expect((await materializer.pruneCache(Date.now())).releases).toBe(0);
    expect((await readdir(join(root, skillId))).sort()).toContain('2');
  });

  it('a crash while the retention job removes a release never leaves part of it to be used later', async () => {
    const root = join(CACHE, dialect);
    const materializer = gw.app.get(SkillReleaseMaterializer);
    const first = await materializer.materialize({ tenantId: 'mat', skillId, version: 1 });
    await gw.http.post(`/api/v1/admin/skills/${skillId}/releases/2/publish`).set(admin).expect(200);
    const longAgo = (Date.now() - UNUSED_RELEASE_MS - 60_000) / 1000;
    await utimes(first, longAgo, longAgo);
    // The process dies while the removal of release 1 (no longer current, unused for a day) is half done.
    const realRm = fsPromises.rm;
    const killed = jest.spyOn(fsPromises, 'rm').mockImplementationOnce(async (path) => {
      await realRm(join(String(path), 'references', 'big.md'));
      throw new Error('the gateway was killed here');
    });
    try {
      await expect(materializer.pruneCache(Date.now())).rejects.toThrow('killed here');
    } finally {
      killed.mockRestore();
    }
    // Rolled back to release 1 after the restart: its copy holds every file of it.
    await gw.http.post(`/api/v1/admin/skills/${skillId}/releases/1/publish`).set(admin).expect(200);
    const again = await materializer.materialize({ tenantId: 'mat', skillId });
    expect(again).toBe(first);
    expect(await readFile(join(again, 'references/big.md'), 'utf8')).toBe(BIG);
    // What the crash left is named as an abandoned build: the retention job removes it an hour later.
    const left = (await readdir(join(root, skillId))).filter((name) => name.startsWith('1.tmp-'));
    expect(left).toHaveLength(1);
    const hourAgo = (Date.now() - 2 * 60 * 60 * 1000) / 1000;
    await utimes(join(root, skillId, left[0]), hourAgo, hourAgo);
    expect((await materializer.pruneCache(Date.now())).abandonedBuilds).toBe(1);
    expect((await readdir(join(root, skillId))).filter((name) => name.startsWith('1.tmp-'))).toEqual([]);
  });

  it('keeps a UTF-8 BOM: the copy holds the uploaded bytes, as many as the file index says', async () => {
    const csv = Buffer.from('\uFEFFname,price\nä,1\n', 'utf8');
    const md = Buffer.from(`\uFEFF${skillMd('bom-skill', 'Files with a byte order mark')}`, 'utf8');
    const res = await gw.http
      .post('/api/v1/admin/skills')
      .set(admin)
      .send({
        tenantId: 'mat',
        skillContent: md.toString('utf8'),
        files: [{ path: 'assets/prices.csv', contentBase64: csv.toString('base64') }],
      })
      .expect(201);
    expect(res.body.name).toBe('bom-skill');
    const index = await gw.http.get(`/api/v1/admin/skills/${res.body.id}/releases/1/files`).set(admin).expect(200);
    expect(index.body.items).toEqual([
      { path: 'SKILL.md', bytes: md.length, totalChars: md.toString('utf8').length },
      { path: 'assets/prices.csv', bytes: csv.length, totalChars: csv.toString('utf8').length },
    ]);
    const dir = await gw.app.get(SkillReleaseMaterializer).materialize({ tenantId: 'mat', skillId: res.body.id });
    expect(await readFile(join(dir, 'assets/prices.csv'))).toEqual(csv);
    expect(await readFile(join(dir, 'SKILL.md'))).toEqual(md);
  });
});
