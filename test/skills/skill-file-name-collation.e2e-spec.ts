import { createKey, gatewayForSuite, type TestGateway } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';
import { buildTestZip } from '@test/support/test-zip.writer';
import { skillMd } from '@test/support/skill-fixture';
import { SkillsRepository } from '@app/modules/skills/skills.repository';

/** Pairs of distinct names that MySQL's utf8mb4_unicode_ci takes for one: every character outside the BMP weighs the same. */
const DISTINCT_NAMES: Array<[string, string]> = [
  ['references/𠮷野家.md', 'references/𩸽野家.md'],
  ['notes-😀.md', 'notes-😎.md'],
];

describeEachDialect('skills: file names that differ are two files, on both databases', (dialect) => {
  const suite = gatewayForSuite(dialect);
  let gw: TestGateway;
  let admin: { Authorization: string };

  beforeAll(async () => {
    gw = suite.gw;
    admin = await createKey(gw, 'collation', 'admin');
  });

  it.each(DISTINCT_NAMES)('stores %s and %s in one release, each with its own text', async (first, second) => {
    const name = `names-${Buffer.from(first).toString('hex').slice(-12)}`;
    const zip = (version: string) =>
      buildTestZip([
        { name: 'SKILL.md', data: skillMd(name, `Two names, ${version}`) },
        { name: first, data: `first ${version}` },
        { name: second, data: `second ${version}` },
      ]);
    const created = await gw.http
      .post('/api/v1/admin/skills')
      .set(admin)
      .field('tenantId', 'collation')
      .attach('file', zip('release 1'), 'skill.zip');
    expect([created.status, created.body.error?.code]).toEqual([201, undefined]);
    const release = await gw.http
      .post(`/api/v1/admin/skills/${created.body.id}/releases`)
      .set(admin)
      .attach('file', zip('release 2'), 'skill.zip');
    expect([release.status, release.body.error?.code]).toEqual([201, undefined]);
    const files = await gw.http.get(`/api/v1/admin/skills/${created.body.id}/releases/2/files`).set(admin).expect(200);
    expect(files.body.items.map((f: { path: string }) => f.path).sort()).toEqual(['SKILL.md', first, second].sort());
    const repo = gw.app.get(SkillsRepository);
    expect(await repo.fileText(created.body.id, 2, first)).toBe('first release 2');
    expect(await repo.fileText(created.body.id, 2, second)).toBe('second release 2');
  });
});
