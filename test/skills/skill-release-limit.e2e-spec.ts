import { createKey, gatewayForSuite, type TestGateway } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';
import { skillMd, uploadJsonSkill } from '@test/support/skill-fixture';

describeEachDialect('skills: at most SKILL_MAX_RELEASES releases per skill', (dialect) => {
  const suite = gatewayForSuite(dialect, { SKILL_MAX_RELEASES: '3' });
  let gw: TestGateway;
  let admin: { Authorization: string };

  beforeAll(async () => {
    gw = suite.gw;
    admin = await createKey(gw, 'rel', 'admin');
  });

  it('refuses a release past the limit with 409 naming it, before the upload is read, and stores nothing', async () => {
    const skill = await uploadJsonSkill(gw, admin, { tenantId: 'rel', skillContent: skillMd('many', 'v1') });
    const release = (description: string) =>
      gw.http
        .post(`/api/v1/admin/skills/${skill.id}/releases`)
        .set(admin)
        .send({ skillContent: skillMd('many', description) });
    expect((await release('v2')).status).toBe(201);
    expect((await release('v3')).status).toBe(201);
    const fourth = await release('v4').expect(409);
    expect(fourth.body.error.code).toBe('SKILL_RELEASE_LIMIT');
    expect(fourth.body.error.message).toContain('SKILL_MAX_RELEASES (3)');
    const broken = await gw.http
      .post(`/api/v1/admin/skills/${skill.id}/releases`)
      .set(admin)
      .attach('file', Buffer.from('PK\x03\x04 not a zip at all'), 'skill.zip')
      .expect(409);
    expect(broken.body.error.code).toBe('SKILL_RELEASE_LIMIT');
    // Concurrent uploads at the limit cannot pass it together either.
    const other = await uploadJsonSkill(gw, admin, { tenantId: 'rel', skillContent: skillMd('racing', 'v1') });
    const racing = await Promise.all(
      [2, 3, 4, 5].map((n) =>
        gw.http
          .post(`/api/v1/admin/skills/${other.id}/releases`)
          .set(admin)
          .send({ skillContent: skillMd('racing', `v${n}`) }),
      ),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([201, 201, 409, 409]);
    for (const id of [skill.id, other.id]) {
      const got = await gw.http.get(`/api/v1/admin/skills/${id}`).set(admin).expect(200);
      expect(got.body.releases.map((r: { version: number }) => r.version)).toEqual([1, 2, 3]);
      expect(got.body.latestVersion).toBe(3);
    }
  });
});
