import { ACT_BODY_SCHEMA } from '@app/modules/loop-acting/sessions/act-body.schema';
import { EXECUTE_DIRECT_BODY_SCHEMA } from '@app/modules/tool-invocation/execute-direct-body.schema';
import { createKey, gatewayForSuite } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';

interface DocumentedSchema {
  required: string[];
  properties: Record<string, Record<string, unknown>>;
}

/** The per-call bodies: each described by one JSON Schema that both Swagger and validation use (SchemaBody). */
const BODIES = [
  { path: '/api/v1/sessions/{id}/act', url: '/api/v1/sessions/s-1/act', schema: ACT_BODY_SCHEMA },
  { path: '/api/v1/tools/{name}/execute', url: '/api/v1/tools/any_tool/execute', schema: EXECUTE_DIRECT_BODY_SCHEMA },
];

describeEachDialect('request bodies described by one schema', (dialect) => {
  const suite = gatewayForSuite(dialect);
  let runtime: { Authorization: string };
  let doc: { paths: Record<string, any>; components: { schemas: Record<string, DocumentedSchema> } };

  beforeAll(async () => {
    runtime = await createKey(suite.gw, 'acme', 'runtime');
    doc = (await suite.gw.http.get('/docs-json').expect(200)).body;
  });

  const documented = (path: string): DocumentedSchema => {
    const ref: string = doc.paths[path].post.requestBody.content['application/json'].schema.$ref;
    return doc.components.schemas[ref.split('/').pop()!];
  };

  it.each(BODIES)('Swagger shows the schema of $path, field by field', ({ path, schema }) => {
    expect(documented(path)).toEqual(JSON.parse(JSON.stringify(schema)));
    expect(Object.keys(documented(path).properties)).toEqual(Object.keys(schema.properties));
  });

  it.each(BODIES)('validation of $path names each required field Swagger documents, when missing', async (body) => {
    const required = documented(body.path).required;
    expect(required.length).toBeGreaterThan(1);
    const res = await suite.gw.http.post(body.url).set(runtime).send({}).expect(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.fields).toEqual(required.map((field) => ({ field, problems: ['is required'] })));
  });

  it.each(BODIES)('validation of $path refuses a field Swagger does not document', async (body) => {
    const res = await suite.gw.http.post(body.url).set(runtime).send({ notInTheSchema: 1 }).expect(400);
    expect(res.body.error.details.fields).toContainEqual({
      field: 'notInTheSchema',
      problems: ['property should not exist'],
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
});
