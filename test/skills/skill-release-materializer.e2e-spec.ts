import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKey, gatewayForSuite, type TestGateway } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';
import { skillMd, uploadJsonSkill } from '@test/support/skill-fixture';
import { SkillReleaseMaterializer } from '@app/modules/skills/skill-release.materializer';
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
});
