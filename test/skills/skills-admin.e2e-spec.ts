import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createKey, gatewayForSuite, type TestGateway } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';
import { buildTestZip } from '@test/support/test-zip.writer';
import { skillMd, uploadJsonSkill } from '@test/support/skill-fixture';
import { SkillsRepository } from '@app/modules/skills/skills.repository';
import { AgentConfigRepository } from '@app/modules/agent-config/agent-config.repository';

/** Settles when `work` does, or after `ms` when it is still waiting (for a lock the caller holds). */
function settledOrWaiting(work: Promise<unknown>, ms: number): Promise<unknown> {
  return Promise.race([work, new Promise((resolve) => setTimeout(resolve, ms))]);
}

describeEachDialect('skills: upload, releases, publish and rollback, tenancy', (dialect) => {
  const suite = gatewayForSuite(dialect);
  let gw: TestGateway;
  let acmeAdmin: { Authorization: string };
  let otherAdmin: { Authorization: string };

  beforeAll(async () => {
    gw = suite.gw;
    acmeAdmin = await createKey(gw, 'acme', 'admin');
    otherAdmin = await createKey(gw, 'other', 'admin');
  });

  it('uploads a zip whose folder is the single top-level entry, and lists its files', async () => {
    const big = 'x'.repeat(20000) + '端'.repeat(10);
    const zip = buildTestZip([
      { name: 'csv-report/', data: '' },
      { name: 'csv-report/SKILL.md', data: skillMd('csv-report', 'Summarise CSV files into a report') },
      { name: 'csv-report/scripts/report.py', data: 'print("report")\n', method: 'store' },
      { name: 'csv-report/references/big.md', data: big },
    ]);
    const res = await gw.http
      .post('/api/v1/admin/skills')
      .set(acmeAdmin)
      .field('tenantId', 'acme')
      .attach('file', zip, 'csv-report.zip')
      .expect(201);
    expect(res.body).toMatchObject({
      name: 'csv-report',
      description: 'Summarise CSV files into a report',
      tenantId: 'acme',
      official: false,
      currentVersion: 1,
      releases: [{ version: 1, fileCount: 3, current: true, publishedAt: expect.any(String) }],
    });
    const files = await gw.http.get(`/api/v1/admin/skills/${res.body.id}/releases/1/files`).set(acmeAdmin).expect(200);
    expect(files.body.items.map((f: { path: string }) => f.path)).toEqual([
      'SKILL.md',
      'references/big.md',
      'scripts/report.py',
    ]);
    expect(files.body.items[1]).toMatchObject({ totalChars: 20010, bytes: 20030 });
  });

  it('takes the example skill folder of the README (examples/skills/csv-summary) as a zip', async () => {
    const root = join(__dirname, '../../examples/skills');
    const files = readdirSync(join(root, 'csv-summary'), { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile())
      .map((d) => join(d.parentPath, d.name));
    const zip = buildTestZip(files.map((f) => ({ name: relative(root, f), data: readFileSync(f) })));
    const res = await gw.http
      .post('/api/v1/admin/skills')
      .set(gw.admin)
      .attach('file', zip, 'csv-summary.zip')
      .expect(201);
    expect(res.body).toMatchObject({ name: 'csv-summary', official: true, releases: [{ fileCount: 3 }] });
    expect(res.body.description).toMatch(/^Summarise a CSV file/);
  });

  it('refuses a second skill of the same name in the same scope (409), but not in another tenant', async () => {
    const content = skillMd('dup-name', 'One');
    await uploadJsonSkill(gw, acmeAdmin, { tenantId: 'acme', skillContent: content });
    const again = await gw.http
      .post('/api/v1/admin/skills')
      .set(acmeAdmin)
      .send({ tenantId: 'acme', skillContent: content })
      .expect(409);
    expect(again.body.error.code).toBe('SKILL_NAME_TAKEN');
    await uploadJsonSkill(gw, otherAdmin, { tenantId: 'other', skillContent: content });
  });

  it('keeps new releases unpublished until publish, and rolls back by publishing an older one', async () => {
    const skill = await uploadJsonSkill(gw, acmeAdmin, {
      tenantId: 'acme',
      skillContent: skillMd('release-demo', 'First description'),
    });
    const r2 = await gw.http
      .post(`/api/v1/admin/skills/${skill.id}/releases`)
      .set(acmeAdmin)
      .send({ skillContent: skillMd('release-demo', 'Second description') })
      .expect(201);
    expect(r2.body).toMatchObject({ version: 2, fileCount: 1, publishedAt: null, current: false });
    let got = await gw.http.get(`/api/v1/admin/skills/${skill.id}`).set(acmeAdmin).expect(200);
    expect(got.body).toMatchObject({ currentVersion: 1, latestVersion: 2, description: 'First description' });

    got = await gw.http.post(`/api/v1/admin/skills/${skill.id}/releases/2/publish`).set(acmeAdmin).expect(200);
    expect(got.body).toMatchObject({ currentVersion: 2, description: 'Second description' });
    got = await gw.http.post(`/api/v1/admin/skills/${skill.id}/releases/1/publish`).set(acmeAdmin).expect(200);
    expect(got.body).toMatchObject({ currentVersion: 1, description: 'First description' });
    expect(got.body.releases.map((r: { current: boolean }) => r.current)).toEqual([true, false]);

    const missing = await gw.http
      .post(`/api/v1/admin/skills/${skill.id}/releases/9/publish`)
      .set(acmeAdmin)
      .expect(404);
    expect(missing.body.error.message).toBe(
      `Skill release-demo has no release 9: its releases are 1 to 2; GET /api/v1/admin/skills/${skill.id} lists them.`,
    );
    const noFiles = await gw.http.get(`/api/v1/admin/skills/${skill.id}/releases/9/files`).set(acmeAdmin).expect(404);
    expect(noFiles.body.error.message).toBe(missing.body.error.message);
    const badVersion = await gw.http
      .post(`/api/v1/admin/skills/${skill.id}/releases/latest/publish`)
      .set(acmeAdmin)
      .expect(400);
    expect(badVersion.body.error.message).toContain('version: must be a whole number');
    const renamed = await gw.http
      .post(`/api/v1/admin/skills/${skill.id}/releases`)
      .set(acmeAdmin)
      .send({ skillContent: skillMd('another-name', 'x') })
      .expect(400);
    expect(renamed.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('gives concurrent release uploads distinct versions', async () => {
    const skill = await uploadJsonSkill(gw, acmeAdmin, { tenantId: 'acme', skillContent: skillMd('busy', 'v1') });
    const versions = await Promise.all(
      [2, 3, 4, 5].map(async (n) => {
        const res = await gw.http
          .post(`/api/v1/admin/skills/${skill.id}/releases`)
          .set(acmeAdmin)
          .send({ skillContent: skillMd('busy', `upload ${n}`) });
        return res.status === 201 ? (res.body.version as number) : res.status;
      }),
    );
    expect([...versions].sort()).toEqual([2, 3, 4, 5]);
    const got = await gw.http.get(`/api/v1/admin/skills/${skill.id}`).set(acmeAdmin).expect(200);
    expect(got.body.releases.map((r: { version: number }) => r.version)).toEqual([1, 2, 3, 4, 5]);
  });

  it.each(['ac/me', 'acmé', 'a'.repeat(65)])(
    'refuses a tenantId outside the tenant id pattern (%s) with 400 naming tenantId, as JSON and as a form',
    async (tenantId) => {
      const json = await gw.http
        .post('/api/v1/admin/skills')
        .set(gw.admin)
        .send({ tenantId, skillContent: skillMd('bad-tenant', 'x') })
        .expect(400);
      expect(json.body.error.code).toBe('VALIDATION_FAILED');
      expect(json.body.error.details.fields.map((f: { field: string }) => f.field)).toEqual(['tenantId']);
      const form = await gw.http
        .post('/api/v1/admin/skills')
        .set(gw.admin)
        .field('tenantId', tenantId)
        .attach('file', buildTestZip([{ name: 'SKILL.md', data: skillMd('bad-tenant', 'x') }]), 'skill.zip')
        .expect(400);
      expect(form.body.error.code).toBe('VALIDATION_FAILED');
      expect(form.body.error.details.fields.map((f: { field: string }) => f.field)).toEqual(['tenantId']);
      const list = await gw.http.get('/api/v1/admin/skills').set(gw.admin).expect(200);
      expect(list.body.items.map((s: { name: string }) => s.name)).not.toContain('bad-tenant');
    },
  );

  it("shows a tenant its own and the official skills, never another tenant's (404)", async () => {
    const official = await uploadJsonSkill(gw, gw.admin, { skillContent: skillMd('official-one', 'Platform skill') });
    const theirs = await uploadJsonSkill(gw, otherAdmin, {
      tenantId: 'other',
      skillContent: skillMd('other-only', 'Not for acme'),
    });
    const list = await gw.http.get('/api/v1/admin/skills?pageSize=500').set(acmeAdmin).expect(200);
    const names = list.body.items.map((s: { name: string }) => s.name);
    expect(names).toContain('official-one');
    expect(names).not.toContain('other-only');
    await gw.http.get(`/api/v1/admin/skills/${theirs.id}`).set(acmeAdmin).expect(404);
    await gw.http.get(`/api/v1/admin/skills/${theirs.id}/releases/1/files`).set(acmeAdmin).expect(404);
    await gw.http.delete(`/api/v1/admin/skills/${theirs.id}`).set(acmeAdmin).expect(404);
    // A release for another tenant's skill is a 404 before its archive is read, a broken one too.
    const brokenZip = Buffer.from('PK\x03\x04 not a zip at all');
    await gw.http
      .post(`/api/v1/admin/skills/${theirs.id}/releases`)
      .set(acmeAdmin)
      .attach('file', brokenZip, 'skill.zip')
      .expect(404);
    await gw.http
      .post(`/api/v1/admin/skills/${theirs.id}/releases`)
      .set(acmeAdmin)
      .send({ skillContent: '' })
      .expect(404);
    await gw.http.get(`/api/v1/admin/skills/${official.id}`).set(acmeAdmin).expect(200);
    // Official skills are changed by the platform key only; a tenant key cannot upload one either.
    await gw.http.delete(`/api/v1/admin/skills/${official.id}`).set(acmeAdmin).expect(403);
    await gw.http
      .post(`/api/v1/admin/skills/${official.id}/releases`)
      .set(acmeAdmin)
      .send({ skillContent: skillMd('official-one', 'hijack') })
      .expect(403);
    await gw.http
      .post('/api/v1/admin/skills')
      .set(acmeAdmin)
      .send({ skillContent: skillMd('sneaky', 'x') })
      .expect(403);
    await gw.http
      .post('/api/v1/admin/skills')
      .set(acmeAdmin)
      .send({ tenantId: 'other', skillContent: skillMd('sneaky', 'x') })
      .expect(403);
  });

  it('refuses a new skill aimed at another tenant (403) before its archive or package is read, a broken one too', async () => {
    const brokenZip = Buffer.from('PK\x03\x04 not a zip at all');
    for (const [tenantId, order] of [
      ['other', 'tenantId first'],
      ['other', 'file first'],
      [undefined, 'file first'],
    ] as const) {
      const form = gw.http.post('/api/v1/admin/skills').set(acmeAdmin);
      const res = await (
        tenantId === undefined
          ? form.attach('file', brokenZip, 'skill.zip')
          : order === 'tenantId first'
            ? form.field('tenantId', tenantId).attach('file', brokenZip, 'skill.zip')
            : form.attach('file', brokenZip, 'skill.zip').field('tenantId', tenantId)
      ).expect(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
    }
    // As JSON: a package breaking the rules (no front matter, a path leaving the folder) is not looked at either.
    const json = await gw.http
      .post('/api/v1/admin/skills')
      .set(acmeAdmin)
      .send({ tenantId: 'other', skillContent: 'no front matter', files: [{ path: '../x', contentBase64: '' }] })
      .expect(403);
    expect(json.body.error.code).toBe('FORBIDDEN');
  });

  it('deletes a skill deleted several times at once only once: one 200, then 404', async () => {
    const skill = await uploadJsonSkill(gw, acmeAdmin, {
      tenantId: 'acme',
      skillContent: skillMd('delete-race', 'Deleted four times at once'),
      files: [{ path: 'notes.md', content: 'notes' }],
    });
    const deletions = await Promise.all(
      Array.from({ length: 4 }, () => gw.http.delete(`/api/v1/admin/skills/${skill.id}`).set(acmeAdmin)),
    );
    expect(deletions.map((r) => [r.status, r.body.error?.code])).toEqual(
      expect.arrayContaining([
        [200, undefined],
        [404, 'NOT_FOUND'],
      ]),
    );
    expect(deletions.map((r) => r.status).sort()).toEqual([200, 404, 404, 404]);
    await gw.http.get(`/api/v1/admin/skills/${skill.id}`).set(acmeAdmin).expect(404);
  });

  it('leaves no deleted skill bound when the skill is deleted while an agent is being bound to it', async () => {
    const agent = await gw.http
      .post('/api/v1/admin/agents')
      .set(acmeAdmin)
      .send({ tenantId: 'acme', name: 'bind-delete-race' })
      .expect(201);
    const skill = await uploadJsonSkill(gw, acmeAdmin, { tenantId: 'acme', skillContent: skillMd('racy', 'x') });
    const repo = gw.app.get(SkillsRepository);
    const find = repo.findSkills.bind(repo);
    let deletion: Promise<unknown> | undefined;
    const spy = jest.spyOn(repo, 'findSkills').mockImplementationOnce(async (...args) => {
      const found = await find(...args);
      // The skill is deleted right after the bind found it bindable.
      deletion = gw.http.delete(`/api/v1/admin/skills/${skill.id}`).set(acmeAdmin).expect(200).then();
      await settledOrWaiting(deletion, 1000);
      return found;
    });
    try {
      const bind = await gw.http
        .put(`/api/v1/admin/agents/${agent.body.id}/skills`)
        .set(acmeAdmin)
        .send({ skillIds: [skill.id] });
      expect([200, 404]).toContain(bind.status);
      await deletion;
    } finally {
      spy.mockRestore();
    }
    const after = await gw.http.get(`/api/v1/admin/agents/${agent.body.id}`).set(acmeAdmin).expect(200);
    expect(after.body.skillIds).toEqual([]);
  });

  it("keeps an agent's new skills when a skill it had is deleted while they are being set", async () => {
    const one = await uploadJsonSkill(gw, acmeAdmin, { tenantId: 'acme', skillContent: skillMd('old-one', 'x') });
    const two = await uploadJsonSkill(gw, acmeAdmin, { tenantId: 'acme', skillContent: skillMd('new-one', 'x') });
    const agent = await gw.http
      .post('/api/v1/admin/agents')
      .set(acmeAdmin)
      .send({ tenantId: 'acme', name: 'unbind-set-race', skillIds: [one.id] })
      .expect(201);
    const repo = gw.app.get(AgentConfigRepository);
    const listing = repo.agentsListing.bind(repo);
    let setting: Promise<unknown> | undefined;
    const spy = jest.spyOn(repo, 'agentsListing').mockImplementationOnce(async (...args) => {
      const agents = await listing(...args);
      // The agent's skills are replaced right after the deletion read which agents have the skill.
      setting = gw.http
        .put(`/api/v1/admin/agents/${agent.body.id}/skills`)
        .set(acmeAdmin)
        .send({ skillIds: [two.id] })
        .expect(200)
        .then();
      await settledOrWaiting(setting, 1000);
      return agents;
    });
    try {
      await gw.http.delete(`/api/v1/admin/skills/${one.id}`).set(acmeAdmin).expect(200);
      await setting;
    } finally {
      spy.mockRestore();
    }
    const after = await gw.http.get(`/api/v1/admin/agents/${agent.body.id}`).set(acmeAdmin).expect(200);
    expect(after.body.skillIds).toEqual([two.id]);
  });

  it("binds own and official skills to an agent, refuses another tenant's (404), and unbinds a deleted skill", async () => {
    const agent = await gw.http
      .post('/api/v1/admin/agents')
      .set(acmeAdmin)
      .send({ tenantId: 'acme', name: 'skill-binder' })
      .expect(201);
    const own = await uploadJsonSkill(gw, acmeAdmin, { tenantId: 'acme', skillContent: skillMd('bind-me', 'Own') });
    const official = await uploadJsonSkill(gw, gw.admin, { skillContent: skillMd('bind-official', 'Official') });
    const theirs = await uploadJsonSkill(gw, otherAdmin, { tenantId: 'other', skillContent: skillMd('bind-no', 'x') });

    const bound = await gw.http
      .put(`/api/v1/admin/agents/${agent.body.id}/skills`)
      .set(acmeAdmin)
      .send({ skillIds: [own.id, official.id, own.id] })
      .expect(200);
    expect(bound.body.skillIds).toEqual([own.id, official.id]);
    const refused = await gw.http
      .put(`/api/v1/admin/agents/${agent.body.id}/skills`)
      .set(acmeAdmin)
      .send({ skillIds: [own.id, theirs.id] })
      .expect(404);
    expect(refused.body.error.message).toContain(theirs.id);
    await gw.http
      .put(`/api/v1/admin/agents/${agent.body.id}/skills`)
      .set(otherAdmin)
      .send({ skillIds: [theirs.id] })
      .expect(404);

    // The agent's create and PATCH bodies carry skillIds too: the same rule holds there.
    await gw.http
      .patch(`/api/v1/admin/agents/${agent.body.id}`)
      .set(acmeAdmin)
      .send({ skillIds: [theirs.id] })
      .expect(404);
    await gw.http
      .post('/api/v1/admin/agents')
      .set(acmeAdmin)
      .send({ tenantId: 'acme', name: 'sneaky-binder', skillIds: [theirs.id] })
      .expect(404);
    const unchanged = await gw.http.get(`/api/v1/admin/agents/${agent.body.id}`).set(acmeAdmin).expect(200);
    expect(unchanged.body.skillIds).toEqual([own.id, official.id]);

    await gw.http.delete(`/api/v1/admin/skills/${own.id}`).set(acmeAdmin).expect(200);
    const after = await gw.http.get(`/api/v1/admin/agents/${agent.body.id}`).set(acmeAdmin).expect(200);
    expect(after.body.skillIds).toEqual([official.id]);
    await gw.http.get(`/api/v1/admin/skills/${own.id}`).set(acmeAdmin).expect(404);
  });
});
