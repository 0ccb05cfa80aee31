import { SessionEventsStore } from '@app/modules/session-events/session-events.store';
import { createKey, gatewayForSuite, type TestGateway } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';
import { skillMd, uploadJsonSkill } from '@test/support/skill-fixture';

const TENANT = 'skill-call';
/** 20,000 characters whose every position is recognisable (crosses the 8,192-character storage chunks). */
/** An emoji (a surrogate pair) right where a storage chunk would end: chunks must not split it. */
const EMOJI = `${'a'.repeat(8191)}😀${'b'.repeat(10)}`;
const GUIDE = Array.from({ length: 2000 }, (_, i) => `${String(i).padStart(4, '0')}-line\n`).join('');

describeEachDialect('SKILL_CALL: choice, SKILL.md and file slices, sandbox wording, active skill', (dialect) => {
  const suite = gatewayForSuite(dialect);
  let gw: TestGateway;
  let admin: { Authorization: string };
  let runtime: { Authorization: string };
  let agentId: string;
  let skillCallId: string;
  let iteration = 0;

  async function session(body: Record<string, unknown> = {}): Promise<string> {
    const res = await gw.http
      .post('/api/v1/sessions')
      .set(runtime)
      .send({ agentId, userId: 'u1', permissions: [], ...body })
      .expect(201);
    return res.body.id;
  }

  async function skillCall(sessionId: string, args: Record<string, unknown>) {
    iteration += 1;
    const res = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration, toolCalls: [{ id: `call-${iteration}`, name: 'SKILL_CALL', arguments: args }] })
      .expect(200);
    return res.body.results[0] as { status: string; content: string; isError: boolean };
  }

  async function activeSkill(sessionId: string) {
    return (await gw.http.get(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200)).body.activeSkill;
  }

  beforeAll(async () => {
    gw = suite.gw;
    admin = await createKey(gw, TENANT, 'admin');
    runtime = await createKey(gw, TENANT);
    const skills = [
      await uploadJsonSkill(gw, admin, {
        tenantId: TENANT,
        skillContent: skillMd('pdf-tables', 'Extract tables from PDF files into CSV', 'Run scripts/extract.py.'),
        files: [
          { path: 'scripts/extract.py', content: 'print("tables")\n' },
          { path: 'references/guide.md', content: GUIDE },
          { path: 'references/emoji.md', content: EMOJI },
        ],
      }),
      await uploadJsonSkill(gw, admin, {
        tenantId: TENANT,
        skillContent: skillMd('slide-deck', 'Build a presentation slide deck from an outline'),
      }),
      await uploadJsonSkill(gw, gw.admin, {
        skillContent: skillMd('invoice-cn', '从发票图片中识别金额和税号，生成报销单'),
        files: [{ path: 'references/税率.md', content: '税率表' }],
      }),
      await uploadJsonSkill(gw, admin, {
        tenantId: TENANT,
        skillContent: skillMd('csv-clean', 'Clean messy spreadsheet rows'),
      }),
      await uploadJsonSkill(gw, admin, {
        tenantId: TENANT,
        skillContent: skillMd('csv-merge', 'Merge messy spreadsheet rows'),
      }),
    ];
    await uploadJsonSkill(gw, admin, { tenantId: TENANT, skillContent: skillMd('not-bound', 'Never bound') });
    const tools = await gw.http.get('/api/v1/admin/tools?source=BUILTIN&pageSize=500').set(gw.admin).expect(200);
    skillCallId = tools.body.items.find((t: { name: string }) => t.name === 'SKILL_CALL').id;
    const agent = await gw.http.post('/api/v1/admin/agents').set(admin).send({ tenantId: TENANT, name: 'skilled' });
    agentId = agent.body.id;
    await gw.http
      .put(`/api/v1/admin/agents/${agentId}/tools`)
      .set(admin)
      .send({ toolIds: [skillCallId] })
      .expect(200);
    await gw.http
      .put(`/api/v1/admin/agents/${agentId}/skills`)
      .set(admin)
      .send({ skillIds: skills.map((s) => s.id) })
      .expect(200);
  });

  it('activates a named skill: SKILL.md, the file index and the sandbox wording; the session records it', async () => {
    const id = await session({ capabilities: ['SANDBOX'] });
    const result = await skillCall(id, { skill: 'pdf-tables' });
    expect(result.status).toBe('COMPLETED');
    expect(result.content).toContain('Skill pdf-tables (release 1) is now active; chosen because you named it');
    expect(result.content).toContain('Run scripts/extract.py.');
    expect(result.content).toContain('- scripts/extract.py (16 bytes)');
    expect(result.content).toContain('- references/guide.md');
    expect(result.content).toMatch(/only activates the skill and reads its files; it runs nothing/);
    expect(result.content).toContain('RUN_COMMAND in the sandbox');
    expect(await activeSkill(id)).toEqual({
      skillId: expect.any(String),
      name: 'pdf-tables',
      version: 1,
      root: '/skills/pdf-tables',
      entryPath: '/skills/pdf-tables/SKILL.md',
    });
    await gw.app.get(SessionEventsStore).flush();
    const events = await gw.http.get(`/api/v1/sessions/${id}/events`).set(runtime).expect(200);
    expect(events.body.items.map((e: { type: string }) => e.type)).toEqual([
      'tool.started',
      'skill.activated',
      'tool.completed',
    ]);
    expect(events.body.items[1]).toMatchObject({ data: { name: 'pdf-tables', version: 1 } });
  });

  it('reads a slice of a file across storage chunks, with totalChars and hasMore', async () => {
    const id = await session({ capabilities: ['SANDBOX'] });
    const slice = await skillCall(id, { skill: 'pdf-tables', path: 'references/guide.md', offset: 8000, limit: 500 });
    expect(slice.status).toBe('COMPLETED');
    expect(JSON.parse(slice.content)).toEqual({
      path: 'references/guide.md',
      offset: 8000,
      limit: 500,
      totalChars: GUIDE.length,
      hasMore: true,
      content: GUIDE.slice(8000, 8500),
    });
    const tail = JSON.parse(
      (await skillCall(id, { skill: 'pdf-tables', path: '/skills/pdf-tables/references/guide.md', offset: 19990 }))
        .content,
    );
    expect(tail).toMatchObject({ offset: 19990, hasMore: false, content: GUIDE.slice(19990) });
    const emoji = JSON.parse(
      (await skillCall(id, { skill: 'pdf-tables', path: 'references/emoji.md', offset: 8189, limit: 6 })).content,
    );
    expect(emoji).toMatchObject({ totalChars: EMOJI.length, content: EMOJI.slice(8189, 8195), hasMore: true });
    expect(emoji.content).toContain('😀');
    // A slice never holds half of the emoji: an offset inside it starts at it, an end inside it ends before it.
    const page = async (offset: number, limit: number) =>
      JSON.parse((await skillCall(id, { skill: 'pdf-tables', path: 'references/emoji.md', offset, limit })).content);
    expect(await page(8192, 3)).toMatchObject({ offset: 8191, content: '😀b', hasMore: true });
    expect(await page(8190, 2)).toMatchObject({ offset: 8190, content: 'a', hasMore: true });
    expect(await page(8191, 1)).toMatchObject({ offset: 8191, content: '😀', hasMore: true });
    const escape = await skillCall(id, { skill: 'pdf-tables', path: '../../etc/passwd' });
    expect(escape).toMatchObject({ status: 'FAILED', isError: true });
    expect(escape.content).toMatch(/^执行失败: .*leaves the skill folder/);
    const missing = await skillCall(id, { skill: 'pdf-tables', path: 'nope.md' });
    expect(missing.content).toContain('has no file nope.md');
  });

  it('tells a session without SANDBOX that only SKILL.md exists, and offers no other file', async () => {
    const id = await session();
    const result = await skillCall(id, { skill: 'pdf-tables' });
    expect(result.content).toContain('Only SKILL.md exists for this session');
    expect(result.content).not.toContain('scripts/extract.py (');
    expect(result.content).not.toContain('references/guide.md');
    const refused = await skillCall(id, { skill: 'pdf-tables', path: 'scripts/extract.py' });
    expect(refused.status).toBe('FAILED');
    expect(refused.content).toContain('only SKILL.md exists for this session');
    expect(JSON.parse((await skillCall(id, { skill: 'pdf-tables', path: 'SKILL.md' })).content).path).toBe('SKILL.md');
  });

  it('tells a SANDBOX session the same for a release with SKILL.md alone', async () => {
    const id = await session({ capabilities: ['SANDBOX'] });
    const result = await skillCall(id, { skill: 'slide-deck' });
    expect(result.content).toContain('Only SKILL.md exists for this session');
  });

  it("picks the session task's skill, then the best match of its description (English and Chinese)", async () => {
    const named = await session({ task: { description: 'anything', skill: 'slide-deck' } });
    expect((await skillCall(named, {})).content).toContain("chosen because the session's task names it");
    expect((await activeSkill(named)).name).toBe('slide-deck');

    const english = await session({ task: { description: 'Pull the tables out of this PDF please' } });
    const en = await skillCall(english, {});
    expect(en.content).toMatch(/Skill pdf-tables .*chosen because it best matches the session's task: the terms/);
    expect(en.content).toContain('"pdf"');
    expect((await activeSkill(english)).name).toBe('pdf-tables');

    const chinese = await session({ task: { description: '帮我把这几张发票做成报销单' } });
    const zh = await skillCall(chinese, {});
    expect(zh.content).toMatch(/Skill invoice-cn .*best matches/);
    expect((await activeSkill(chinese)).name).toBe('invoice-cn');
  });

  it('lists close matches and activates nothing', async () => {
    const id = await session({ task: { description: 'fix the messy spreadsheet rows' } });
    const result = await skillCall(id, {});
    expect(result.status).toBe('COMPLETED');
    expect(result.content).toContain('Several bound skills match');
    expect(result.content).toContain('- csv-clean: Clean messy spreadsheet rows');
    expect(result.content).toContain('- csv-merge: Merge messy spreadsheet rows');
    expect(await activeSkill(id)).toBeNull();
    const noTask = await session();
    expect((await skillCall(noTask, {})).content).toContain('no task description');
  });

  it('fails a skill that is not bound to the agent', async () => {
    const id = await session();
    const result = await skillCall(id, { skill: 'not-bound' });
    expect(result).toMatchObject({ status: 'FAILED', isError: true });
    expect(result.content).toContain('skill not-bound is not bound to this agent');
    expect(await activeSkill(id)).toBeNull();
  });

  it("names the active skill in the next round's reminders (tool-specs with sessionId)", async () => {
    const id = await session({ capabilities: ['SANDBOX'] });
    const specs = (sessionId: string, auth = runtime) =>
      gw.http
        .post(`/api/v1/agents/${agentId}/tool-specs`)
        .set(auth)
        .send({ userId: 'ignored', permissions: [], sessionId });
    expect((await specs(id).expect(200)).body.reminders).toEqual([]);
    await skillCall(id, { skill: 'pdf-tables' });
    const after = await specs(id).expect(200);
    expect(after.body.reminders).toEqual([
      expect.stringContaining(
        'Active skill: pdf-tables (release 1). Follow the instructions of /skills/pdf-tables/SKILL.md',
      ),
    ]);
    expect(after.body.reminders[0]).toContain('read-only at /skills/pdf-tables');
    const preview = await gw.http
      .post(`/api/v1/admin/agents/${agentId}/tool-specs`)
      .set(admin)
      .send({ userId: 'u1', permissions: [], sessionId: id })
      .expect(200);
    expect(preview.body.reminders).toEqual(after.body.reminders);
    expect((await specs(id, await createKey(gw, 'someone-else')).expect(404)).body.error.code).toBe('NOT_FOUND');
    await specs('no-such-session').expect(404);
  });

  it('stays visible to an agent whose sideEffectPolicy is READ_ONLY', async () => {
    await gw.http
      .patch(`/api/v1/admin/agents/${agentId}`)
      .set(admin)
      .send({ sideEffectPolicy: 'READ_ONLY' })
      .expect(200);
    const specs = await gw.http
      .post(`/api/v1/agents/${agentId}/tool-specs`)
      .set(runtime)
      .send({ userId: 'u1', permissions: [] })
      .expect(200);
    expect(specs.body.tools.map((t: { function: { name: string } }) => t.function.name)).toContain('SKILL_CALL');
    await gw.http.patch(`/api/v1/admin/agents/${agentId}`).set(admin).send({ sideEffectPolicy: 'ALLOW' }).expect(200);
  });

  it('hides SKILL_CALL at DEPENDENCIES for an agent without a bound skill', async () => {
    const bare = await gw.http.post('/api/v1/admin/agents').set(admin).send({ tenantId: TENANT, name: 'bare' });
    await gw.http
      .put(`/api/v1/admin/agents/${bare.body.id}/tools`)
      .set(admin)
      .send({ toolIds: [skillCallId] })
      .expect(200);
    const specs = await gw.http
      .post(`/api/v1/agents/${bare.body.id}/tool-specs`)
      .set(runtime)
      .send({ userId: 'u1', permissions: [], explain: true })
      .expect(200);
    const names = (body: { tools: Array<{ function: { name: string } }> }) => body.tools.map((t) => t.function.name);
    expect(names(specs.body)).not.toContain('SKILL_CALL');
    expect(specs.body.decisions).toContainEqual(
      expect.objectContaining({ name: 'SKILL_CALL', visible: false, layer: 'DEPENDENCIES' }),
    );
    const withSkill = await gw.http
      .post(`/api/v1/agents/${agentId}/tool-specs`)
      .set(runtime)
      .send({ userId: 'u1', permissions: [] })
      .expect(200);
    expect(names(withSkill.body)).toContain('SKILL_CALL');
  });
});
