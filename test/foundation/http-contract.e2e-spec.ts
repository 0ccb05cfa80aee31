import { UNKNOWN_FIELD_PROBLEM } from '@app/common/errors/validation';
import request from 'supertest';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { createTestDatabaseUrl, TestDatabase } from '@test/support/test-database';
import { bearer, createKey, startTestGateway, TestGateway, toolBody } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';

/** Fields that legitimately differ between two runs of the same call. */
function normalized(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (key, value: unknown) => {
    if (key === 'durationMs' && typeof value === 'number') return '<ms>';
    if (key === 'toolCallId' && typeof value === 'string' && value.startsWith('direct-')) return '<generated>';
    if (key === 'message' && typeof value === 'string') return value.replace(/incident [0-9a-f-]{36}/, 'incident <id>');
    return value;
  });
}

const JSON_TYPE = 'application/json; charset=utf-8';
const COMPLETED = {
  status: 'COMPLETED',
  content: '{"ok":true}',
  isError: false,
  attempts: 1,
  durationMs: '<ms>',
  toolCallId: '<generated>',
  errorClass: null,
};
const invalid = (fields: Array<[string, string]>) => ({
  error: {
    code: 'VALIDATION_FAILED',
    message: `Invalid request: ${fields.map(([f, p]) => `${f}: ${p}`).join(' | ')}. Fix these fields and send it again.`,
    details: { fields: fields.map(([field, problem]) => ({ field, problems: [problem] })) },
  },
});
const error = (code: string, message: string, details: Record<string, unknown> = {}) => ({
  error: { code, message, details },
});

/**
 * The HTTP contract of the per-call endpoints (act, execute), served by Nest's router on Fastify like every
 * other route: each request below gets exactly the answer the contract gives (these were the answers of the
 * Express pipeline; where Fastify's pipeline answers differently on purpose, the case says so).
 */
describe('HTTP contract of act and execute (routing, bodies, errors)', () => {
  let db: TestDatabase;
  let remote: RecordingHttpServer;
  let gw: TestGateway;
  let runtime: { Authorization: string };
  let tenantAdmin: { Authorization: string };
  let agentId: string;
  let sessionId: string;

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    db = await createTestDatabaseUrl('sqlite');
    gw = await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
    runtime = await createKey(gw, 'acme', 'runtime');
    tenantAdmin = await createKey(gw, 'acme', 'admin');
    const tool = (
      await gw.http
        .post('/api/v1/admin/tools')
        .set(gw.admin)
        .send(toolBody({ name: 'lookup', tenantId: 'acme', endpoint: remote.url('/lookup') }))
        .expect(201)
    ).body;
    agentId = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'a', tenantId: 'acme' }).expect(201)
    ).body.id;
    await gw.http
      .put(`/api/v1/admin/agents/${agentId}/tools`)
      .set(gw.admin)
      .send({ toolIds: [tool.id] })
      .expect(200);
    sessionId = (
      await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u1', permissions: [] }).expect(201)
    ).body.id;
    await gw.http.post(`/api/v1/sessions/${sessionId}/act`).set(runtime).send(replayedAct).expect(200);
  });
  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
    await db?.drop();
  });

  const execute = '/api/v1/tools/lookup/execute';
  const replayedAct = { iteration: 1, toolCalls: [{ id: 'replayed', name: 'lookup', arguments: { q: 'r' } }] };
  const executeBody = () => ({ agentId, userId: 'u1', permissions: [], arguments: { q: 'order-1' } });
  const readError = (reason: string) =>
    error('VALIDATION_FAILED', `The request could not be read: ${reason}. Send a valid JSON body.`, { fields: [] });

  const cases: Array<[string, (http: ReturnType<typeof request>) => request.Test, number, unknown]> = [
    ['a call that runs', (http) => http.post(execute).set(runtime).send(executeBody()), 200, COMPLETED],
    [
      'arguments against the schema',
      (http) =>
        http
          .post(execute)
          .set(runtime)
          .send({ ...executeBody(), arguments: { q: 7 } }),
      200,
      {
        ...COMPLETED,
        status: 'FAILED',
        content:
          '执行失败: arguments do not match the schema of lookup: q: must be string. Fix them and call again; no call was made',
        isError: true,
        attempts: 0,
        errorClass: 'BAD_ARGUMENTS',
      },
    ],
    [
      'no key',
      (http) => http.post(execute).send(executeBody()),
      401,
      error('UNAUTHENTICATED', 'Missing API key: send the header "Authorization: Bearer <key>".'),
    ],
    [
      'an unknown key',
      (http) => http.post(execute).set(bearer('no-such-key-0123456789')).send(executeBody()),
      401,
      error('UNAUTHENTICATED', 'Unknown or revoked API key: check the key, or ask an admin for a new one.'),
    ],
    [
      'a key of the wrong role',
      (http) => http.post(execute).set(tenantAdmin).send(executeBody()),
      403,
      error('FORBIDDEN', 'This endpoint needs a key with role runtime; yours has role admin.'),
    ],
    [
      'a body missing userId',
      (http) => http.post(execute).set(runtime).send({ arguments: {} }),
      400,
      invalid([
        ['agentId', 'is required'],
        ['userId', 'is required'],
        ['permissions', 'is required'],
      ]),
    ],
    [
      'a body with an unknown field',
      (http) =>
        http
          .post(execute)
          .set(runtime)
          .send({ ...executeBody(), extra: 1 }),
      400,
      invalid([['extra', UNKNOWN_FIELD_PROBLEM]]),
    ],
    [
      'arguments that are neither an object nor a string',
      (http) =>
        http
          .post(execute)
          .set(runtime)
          .send({ ...executeBody(), arguments: null }),
      400,
      invalid([['arguments', 'must be an object or a string']]),
    ],
    ['an array body', (http) => http.post(execute).set(runtime).send([]), 400, invalid([['(body)', 'must be object']])],
    [
      'an empty JSON body (read as {})',
      (http) => http.post(execute).set(runtime).set('content-type', 'application/json').send(''),
      400,
      invalid([
        ['agentId', 'is required'],
        ['userId', 'is required'],
        ['permissions', 'is required'],
        ['arguments', 'is required'],
      ]),
    ],
    [
      'a JSON body that is not an object or array',
      (http) => http.post(execute).set(runtime).set('content-type', 'application/json').send('"text"'),
      400,
      readError('Unexpected token \'"\', ""text"" is not valid JSON'),
    ],
    [
      'malformed JSON',
      (http) => http.post(execute).set(runtime).set('content-type', 'application/json').send('{"userId": '),
      400,
      readError('Unexpected end of JSON input'),
    ],
    [
      'an unknown tool',
      (http) => http.post('/api/v1/tools/nope/execute').set(runtime).send(executeBody()),
      404,
      error(
        'NOT_FOUND',
        "No tool named nope in your tenant or platform-wide; use a name from the agent's tool specs (POST /api/v1/agents/{agentId}/tool-specs).",
        { toolName: 'nope' },
      ),
    ],
    [
      'a percent-encoded tool name',
      (http) => http.post('/api/v1/tools/look%75p/execute').set(runtime).send(executeBody()),
      200,
      COMPLETED,
    ],
    ['a trailing slash', (http) => http.post(`${execute}/`).set(runtime).send(executeBody()), 200, COMPLETED],
    [
      'static segments in another letter case',
      (http) => http.post('/API/v1/Tools/lookup/EXECUTE').set(runtime).send(executeBody()),
      200,
      COMPLETED,
    ],
    ['a query string', (http) => http.post(`${execute}?x=1`).set(runtime).send(executeBody()), 200, COMPLETED],
    [
      'a GET on a POST endpoint',
      (http) => http.get(execute).set(runtime),
      404,
      error('ROUTE_NOT_FOUND', 'No endpoint matches this method and path; see /docs for the API.'),
    ],
    [
      'an act on an unknown session',
      (http) =>
        http
          .post('/api/v1/sessions/00000000-0000-4000-8000-000000000000/act')
          .set(runtime)
          .send({ iteration: 1, toolCalls: [] }),
      400,
      invalid([['toolCalls', 'must NOT have fewer than 1 items']]),
    ],
    [
      'an act with a bad body',
      (http) => http.post(`/api/v1/sessions/${sessionId}/act`).set(runtime).send({ iteration: 'one' }),
      400,
      invalid([
        ['toolCalls', 'is required'],
        ['iteration', 'must be integer'],
      ]),
    ],
    [
      'an act whose arguments are an array',
      (http) =>
        http
          .post(`/api/v1/sessions/${sessionId}/act`)
          .set(runtime)
          .send({ iteration: 1, toolCalls: [{ id: 'c-array', name: 'lookup', arguments: [1] }] }),
      400,
      invalid([['toolCalls.0.arguments', 'must be an object or a string']]),
    ],
    [
      'an act replay of a finished call',
      (http) => http.post(`/api/v1/sessions/${sessionId}/act`).set(runtime).send(replayedAct),
      200,
      {
        status: 'COMPLETED',
        results: [
          {
            toolCallId: 'replayed',
            toolName: 'lookup',
            status: 'COMPLETED',
            content: '{"ok":true}',
            isError: false,
            reused: true,
            attempts: 1,
            durationMs: '<ms>',
            totalChars: 11,
            truncated: false,
            errorClass: null,
          },
        ],
      },
    ],
  ];

  it.each(cases)('%s', async (_name, send, status, body) => {
    const res = await send(gw.http);
    expect({ status: res.status, contentType: res.headers['content-type'], body: normalized(res.body) }).toEqual({
      status,
      contentType: JSON_TYPE,
      body,
    });
  });

  /** A raw body sent as is (supertest would JSON-serialize a Buffer under a JSON content type), through Fastify's inject. */
  const sendRaw = (url: string, headers: Record<string, string>, payload: Buffer) =>
    gw.app
      .getHttpAdapter()
      .getInstance()
      .inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', ...runtime, ...headers },
        payload,
      });

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const)('a %s body is inflated and served', async (encoding, compress) => {
    const res = await sendRaw(execute, { 'content-encoding': encoding }, compress(JSON.stringify(executeBody())));
    expect({ status: res.statusCode, contentType: res.headers['content-type'], body: normalized(res.json()) }).toEqual({
      status: 200,
      contentType: JSON_TYPE,
      body: COMPLETED,
    });
  });

  it('a new act call runs the tool', async () => {
    const res = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'new-1', name: 'lookup', arguments: { q: 'n' } }] });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    expect(res.body.results[0]).toMatchObject({ toolCallId: 'new-1', status: 'COMPLETED', reused: false });
  });

  it('a body over the limit (10 MB) is a 413 PAYLOAD_TOO_LARGE', async () => {
    const huge = JSON.stringify({ ...executeBody(), arguments: { q: 'x'.repeat(10 * 1024 * 1024) } });
    const res = await gw.http.post(execute).set(runtime).set('content-type', 'application/json').send(huge);
    expect({ status: res.status, body: res.body }).toEqual({
      status: 413,
      body: error(
        'PAYLOAD_TOO_LARGE',
        "The request body is larger than the 10485760 bytes (10 MB) the API reads (counted after Content-Encoding is undone); send a smaller body: split the data across several requests, or upload files to a session's workspace with PUT /api/v1/sessions/{id}/files/content.",
      ),
    });
  });

  it('a body nested deeper than 64 levels is a 400 naming the limit', async () => {
    const deep = `{"agentId":"a","userId":"u","permissions":[],"arguments":${'['.repeat(100)}${']'.repeat(100)}}`;
    const res = await gw.http.post(execute).set(runtime).set('content-type', 'application/json').send(deep);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { fields: [{ field: '(body)', problems: [expect.stringContaining('nested deeper than 64 levels')] }] },
    });
  });

  it('a body that is not JSON is a 415 UNSUPPORTED_MEDIA_TYPE (Express read none and answered "(body): must be object")', async () => {
    const res = await gw.http.post(execute).set(runtime).set('content-type', 'text/plain').send('hello');
    expect(res.status).toBe(415);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    expect(res.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('a JSON body declared in another charset than UTF-8 is a 415; utf-8 in any spelling is read', async () => {
    const latin1 = await gw.http
      .post(execute)
      .set(runtime)
      .set('content-type', 'application/json; charset=iso-8859-1')
      .send(JSON.stringify(executeBody()));
    expect({ status: latin1.status, code: latin1.body.error?.code }).toEqual({
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
    });
    expect(latin1.body.error.message).toContain('unsupported charset "ISO-8859-1"');
    const utf8 = await gw.http
      .post(execute)
      .set(runtime)
      .set('content-type', 'application/json; charset="UTF-8"')
      .send(JSON.stringify(executeBody()));
    expect(utf8.status).toBe(200);
  });

  it('a compressed body that does not inflate is a 400, an unknown encoding a 415', async () => {
    const broken = await sendRaw(execute, { 'content-encoding': 'gzip' }, Buffer.from('not gzip at all'));
    expect({ status: broken.statusCode, code: broken.json().error?.code }).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
    });
    const unknown = await gw.http
      .post(execute)
      .set(runtime)
      .set('content-type', 'application/json')
      .set('content-encoding', 'zstd')
      .send(JSON.stringify(executeBody()));
    expect({ status: unknown.status, code: unknown.body.error?.code }).toEqual({
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
    });
    expect(unknown.body.error.message).toContain(
      'unsupported content encoding "zstd" (gzip, deflate and br are read; or send the body without Content-Encoding)',
    );
  });

  it("a path parameter that does not percent-decode is a 400 with the contract's error body", async () => {
    const res = await gw.http.post('/api/v1/tools/%E0%A4%A/execute').set(runtime).send(executeBody());
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
  });
});
