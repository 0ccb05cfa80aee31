import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKey, gatewayForSuite, type TestGateway } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';
import { buildTestZip } from '@test/support/test-zip.writer';
import { skillMd, uploadJsonSkill } from '@test/support/skill-fixture';
import { SkillReleaseMaterializer } from '@app/modules/skills/skill-release.materializer';

const CACHE = mkdtempSync(join(tmpdir(), 'gw-skill-names-'));
/** 86 Chinese characters: 258 bytes of UTF-8, past the 255 bytes a file name may have on Linux file systems. */
const LONG_CHINESE = '技能参考资料'.repeat(14) + '说明';
/** 85 Chinese characters: 255 bytes, the longest name the sandbox's copy can hold. */
const LONGEST_CHINESE = LONG_CHINESE.slice(0, 85);

describeEachDialect('skills: a file name the sandbox copy cannot hold is refused at upload', (dialect) => {
  const suite = gatewayForSuite(dialect, { SKILL_CACHE_DIR: join(CACHE, dialect) });
  let gw: TestGateway;
  let admin: { Authorization: string };

  beforeAll(async () => {
    gw = suite.gw;
    admin = await createKey(gw, 'names', 'admin');
  });

  afterAll(async () => {
    execFileSync('chmod', ['-R', 'u+w', join(CACHE, dialect)]); // the releases are read-only on disk
    await rm(join(CACHE, dialect), { recursive: true, force: true });
  });

  it('refuses a zip whose file name is longer than 255 bytes, naming it', async () => {
    const res = await gw.http
      .post('/api/v1/admin/skills')
      .set(admin)
      .field('tenantId', 'names')
      .attach(
        'file',
        buildTestZip([
          { name: 'SKILL.md', data: skillMd('long-names', 'Long names') },
          { name: `references/${LONG_CHINESE}.md`, data: 'x' },
        ]),
        'skill.zip',
      )
      .expect(400);
    expect(res.body.error.code).toBe('SKILL_ARCHIVE_INVALID');
    expect(res.body.error.message).toMatch(/255 bytes/);
  });

  it('refuses the same name in a JSON upload as VALIDATION_FAILED', async () => {
    const res = await gw.http
      .post('/api/v1/admin/skills')
      .set(admin)
      .send({
        tenantId: 'names',
        skillContent: skillMd('long-names', 'Long names'),
        files: [{ path: `${LONG_CHINESE}/notes.md`, contentBase64: Buffer.from('x').toString('base64') }],
      })
      .expect(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.message).toMatch(/255 bytes/);
    expect((await gw.http.get('/api/v1/admin/skills').set(admin).expect(200)).body.total).toBe(0);
  });

  it('takes a name of 255 bytes, and the sandbox copy holds it', async () => {
    await uploadJsonSkill(gw, admin, {
      tenantId: 'names',
      skillContent: skillMd('long-names', 'Long names'),
      files: [{ path: `references/${LONGEST_CHINESE}`, content: 'fits' }],
    });
    const dir = await gw.app.get(SkillReleaseMaterializer).materialize({ tenantId: 'names', name: 'long-names' });
    expect(await readFile(join(dir, 'references', LONGEST_CHINESE), 'utf8')).toBe('fits');
  });
});
