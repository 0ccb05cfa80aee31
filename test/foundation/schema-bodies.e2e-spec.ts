import { UNKNOWN_FIELD_PROBLEM } from '@app/common/errors/validation';
import { ACT_BODY_SCHEMA } from '@app/modules/loop-acting/sessions/act-body.schema';
import { EXECUTE_DIRECT_BODY_SCHEMA } from '@app/modules/tool-invocation/execute-direct-body.schema';
import { TOOL_SPECS_BODY_SCHEMA } from '@app/modules/agent-config/tool-specs-body.schema';
import { createKey, gatewayForSuite } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';

interface DocumentedSchema {
  required: string[];
  properties: Record<string, Record<string, unknown>>;
}

/** The per-call bodies: each described by one JSON Schema that both Swagger and validation use (SchemaBody). */
const BODIES = [
  { path: '/api/v1/sessions/{id}/act', url: '/api/v1/sessions/s-1/act', schema: ACT_BODY_SCHEMA, admin: false },
  {
    path: '/api/v1/tools/{name}/execute',
    url: '/api/v1/tools/any_tool/execute',
    schema: EXECUTE_DIRECT_BODY_SCHEMA,
    admin: false,
  },
  {
    path: '/api/v1/agents/{agentId}/tool-specs',
    url: '/api/v1/agents/any-agent/tool-specs',
    schema: TOOL_SPECS_BODY_SCHEMA,
    admin: false,
  },
  {
    path: '/api/v1/admin/agents/{agentId}/tool-specs',
    url: '/api/v1/admin/agents/any-agent/tool-specs',
    schema: TOOL_SPECS_BODY_SCHEMA,
    admin: true,
  },
];
const TOOL_SPECS = '/api/v1/agents/{agentId}/tool-specs';

describeEachDialect('request bodies described by one schema', (dialect) => {
  const suite = gatewayForSuite(dialect);
  let runtime: { Authorization: string };
  let doc: { paths: Record<string, any>; components: { schemas: Record<string, DocumentedSchema> } };

  beforeAll(async () => {
    runtime = await createKey(suite.gw, 'acme', 'runtime');
    doc = (await suite.gw.http.get('/docs-json').expect(200)).body;
  });

  const refOf = (path: string): string => doc.paths[path].post.requestBody.content['application/json'].schema.$ref;
  const documented = (path: string): DocumentedSchema => doc.components.schemas[refOf(path).split('/').pop()!];
  const keyFor = (body: { admin: boolean }) => (body.admin ? suite.gw.admin : runtime);

  it.each(BODIES)('Swagger shows the schema of $path, field by field', ({ path, schema }) => {
    expect(documented(path)).toEqual(JSON.parse(JSON.stringify(schema)));
    expect(Object.keys(documented(path).properties)).toEqual(Object.keys(schema.properties));
  });

  it.each(BODIES)('validation of $path names each required field Swagger documents, when missing', async (body) => {
    const required = documented(body.path).required;
    expect(required.length).toBeGreaterThan(1);
    const res = await suite.gw.http.post(body.url).set(keyFor(body)).send({}).expect(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.fields).toEqual(required.map((field) => ({ field, problems: ['is required'] })));
  });

  it.each(BODIES)('validation of $path refuses a field Swagger does not document', async (body) => {
    const res = await suite.gw.http.post(body.url).set(keyFor(body)).send({ notInTheSchema: 1 }).expect(400);
    expect(res.body.error.details.fields).toContainEqual({
      field: 'notInTheSchema',
      problems: [UNKNOWN_FIELD_PROBLEM],
    });
  });

  it('validation applies the limits Swagger shows (act: toolCalls maxItems)', async () => {
    const toolCalls = documented('/api/v1/sessions/{id}/act').properties.toolCalls;
    const max = toolCalls.maxItems as number;
    const call = (i: number) => ({ id: `c${i}`, name: 'echo', arguments: {} });
    const res = await suite.gw.http
      .post('/api/v1/sessions/s-1/act')
      .set(runtime)
      .send({ iteration: 1, toolCalls: Array.from({ length: max + 1 }, (_v, i) => call(i)) })
      .expect(400);
    expect(res.body.error.details.fields).toEqual([
      { field: 'toolCalls', problems: [`must NOT have more than ${max} items`] },
    ]);
  });

  it('the runtime and the admin preview of tool-specs share one body component', () => {
    expect(refOf(TOOL_SPECS)).toBe('#/components/schemas/ToolSpecsBody');
    expect(refOf('/api/v1/admin/agents/{agentId}/tool-specs')).toBe(refOf(TOOL_SPECS));
  });

  it('validation applies the limits, enums and cross-field rule Swagger shows (tool-specs)', async () => {
    const { properties, 'x-only-with': onlyWith } = documented(TOOL_SPECS) as DocumentedSchema & {
      'x-only-with': Record<string, { needs: Record<string, string>; because: string }>;
    };
    const max = properties.permissions.maxItems as number;
    const post = (body: object) =>
      suite.gw.http.post('/api/v1/agents/any-agent/tool-specs').set(runtime).send(body).expect(400);
    const tooMany = await post({ userId: 'u', permissions: Array.from({ length: max + 1 }, (_v, i) => `p${i}`) });
    expect(tooMany.body.error.details.fields).toEqual([
      { field: 'permissions', problems: [`must NOT have more than ${max} items`] },
    ]);
    const badEnums = await post({ userId: 'u', permissions: [], format: 'llama', capabilities: ['SANDBOX', 'GPU'] });
    expect(badEnums.body.error.details.fields).toEqual([
      {
        field: 'capabilities',
        problems: [`must be one of: ${(properties.capabilities.items as any).enum.join(', ')}`],
      },
      { field: 'format', problems: [`must be one of: ${(properties.format.enum as string[]).join(', ')}`] },
    ]);
    const { needs, because } = onlyWith.strict;
    expect(needs).toEqual({ format: 'openai' });
    const strictGemini = await post({ userId: 'u', permissions: [], strict: true, format: 'gemini' });
    expect(strictGemini.body.error.details.fields).toEqual([
      {
        field: 'strict',
        problems: [`strict is ${because}: send it with format openai, or leave it out for format gemini`],
      },
    ]);
    expect(strictGemini.body.error.details.fields[0].problems[0]).toBe(
      "strict is OpenAI's mode: send it with format openai, or leave it out for format gemini",
    );
  });
});
