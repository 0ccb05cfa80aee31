import { createTestDatabaseUrl, TestDatabase } from '@test/support/test-database';
import { createKey, startTestGateway, TestGateway, toolBody } from '@test/support/gateway-test-app';

/**
 * OpenAI refuses a request with more than 128 tools (array_above_max_length) and Vertex AI documents 128 function
 * declarations for Gemini: an agent bound to more gets at most 128 in those formats, the rest explained at POLICY.
 */
describe('tool-specs within the providers\u2019 cap on tools per request', () => {
  let db: TestDatabase;
  let gw: TestGateway;
  let runtime: { Authorization: string };
  let agentId: string;
  const BOUND = 130;

  const toolSpecs = (body: Record<string, unknown>) =>
    gw.http
      .post(`/api/v1/agents/${agentId}/tool-specs`)
      .set(runtime)
      .send({ userId: 'u1', permissions: [], ...body })
      .expect(200);

  beforeAll(async () => {
    db = await createTestDatabaseUrl('sqlite');
    gw = await startTestGateway(db.url);
    const ids: string[] = [];
    for (let i = 0; i < BOUND; i++) {
      const name = `t_${String(i).padStart(3, '0')}`;
      ids.push(
        (
          await gw.http
            .post('/api/v1/admin/tools')
            .set(gw.admin)
            .send(toolBody({ name, tenantId: 'acme' }))
            .expect(201)
        ).body.id,
      );
    }
    runtime = await createKey(gw, 'acme', 'runtime');
    agentId = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'many', tenantId: 'acme' }).expect(201)
    ).body.id;
    await gw.http.put(`/api/v1/admin/agents/${agentId}/tools`).set(gw.admin).send({ toolIds: ids }).expect(200);
  }, 120_000);
  afterAll(async () => {
    await gw?.close();
    await db?.drop();
  });

  const nameOf = (t: { name?: string; function?: { name: string } }) => t.name ?? t.function!.name;

  it.each(['openai', 'openai-responses', 'gemini'])(
    '%s: 128 tools, READ_TOOL_RESULT kept, the rest explained',
    async (format) => {
      const res = await toolSpecs({ format, explain: true });
      const names: string[] = res.body.tools.map(nameOf);
      expect(names).toHaveLength(128);
      expect(names).toContain('READ_TOOL_RESULT');
      const visible = res.body.decisions.filter((d: { visible: boolean }) => d.visible);
      expect(visible.map((d: { name: string }) => d.name).sort()).toEqual([...names].sort());
      const cut = res.body.decisions.filter((d: { layer: string; reason: string }) => d.reason.includes('at most 128'));
      expect(cut.map((d: { name: string }) => d.name)).toEqual(['t_127', 't_128', 't_129']);
      expect(cut.every((d: { visible: boolean; layer: string }) => !d.visible && d.layer === 'POLICY')).toBe(true);
      expect((await toolSpecs({ format })).body.tools.map(nameOf)).toEqual(names);
    },
  );

  it('anthropic: every visible tool (no documented cap)', async () => {
    expect((await toolSpecs({ format: 'anthropic' })).body.tools).toHaveLength(BOUND + 1);
  });
});
