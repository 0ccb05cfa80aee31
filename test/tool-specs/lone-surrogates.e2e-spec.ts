import { createTestDatabaseUrl, TestDatabase } from '@test/support/test-database';
import { createKey, startTestGateway, TestGateway, toolBody } from '@test/support/gateway-test-app';

/** A lone UTF-16 surrogate as JSON.stringify writes it (an escape), which OpenAI and Anthropic refuse as invalid JSON. */
const LONE_SURROGATE_ESCAPE = /(?<!\\)(?:\\\\)*\\ud[89a-f][0-9a-f]{2}/i;

/**
 * Half an emoji anywhere in a tool's schema (a property's description, an enum value: an MCP server's
 * text cut mid-character, or an admin's `\ud83d` escape) made the whole model request invalid for OpenAI and
 * Anthropic ("no low surrogate in string"). Every emitted spec is well-formed text, in every format.
 */
describe('tool specs hold no half of a surrogate pair anywhere', () => {
  let db: TestDatabase;
  let gw: TestGateway;
  let runtime: { Authorization: string };
  let agentId: string;

  beforeAll(async () => {
    db = await createTestDatabaseUrl('sqlite');
    gw = await startTestGateway(db.url);
    const parameters = {
      type: 'object',
      properties: {
        city: { type: 'string', description: 'The city \ud83c (cut in the middle of an emoji)' },
        mood: { type: 'string', enum: ['happy \ud83d\ude00', 'cut \udc00'] },
      },
      required: ['city'],
    };
    const toolId = (
      await gw.http
        .post('/api/v1/admin/tools')
        .set(gw.admin)
        .send(toolBody({ name: 'weather', tenantId: 'acme', endpoint: 'http://127.0.0.1:9/weather', parameters }))
        .expect(201)
    ).body.id;
    runtime = await createKey(gw, 'acme', 'runtime');
    agentId = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'bot', tenantId: 'acme' }).expect(201)
    ).body.id;
    await gw.http
      .put(`/api/v1/admin/agents/${agentId}/tools`)
      .set(gw.admin)
      .send({ toolIds: [toolId] })
      .expect(200);
  });
  afterAll(async () => {
    await gw?.close();
    await db?.drop();
  });

  it.each([
    ['openai', false],
    ['openai', true],
    ['openai-responses', false],
    ['anthropic', false],
    ['gemini', false],
  ])(
    'emits %s (strict: %s) as well-formed text, half characters replaced by U+FFFD and real emoji kept',
    async (format, strict) => {
      const res = await gw.http
        .post(`/api/v1/agents/${agentId}/tool-specs`)
        .set(runtime)
        .send({ userId: 'u1', permissions: [], format, ...(strict && { strict }) })
        .expect(200);
      expect(res.text).toContain('"weather"');
      expect(res.text).not.toMatch(LONE_SURROGATE_ESCAPE);
      expect(res.text).toContain('The city \ufffd (cut');
      expect(res.text).toContain('happy \ud83d\ude00');
    },
  );
});
