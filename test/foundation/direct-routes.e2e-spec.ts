import request from 'supertest';
import { gzipSync } from 'node:zlib';
import { DirectRouter } from '@app/common/http/direct-routes/direct-router';
import { createTestDatabaseUrl, TestDatabase } from '@test/support/test-database';
import { bearer, createKey, startTestGateway, TestGateway, toolBody } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';


interface Answer {
  status: number;
  contentType: string | undefined;
  body: unknown;
}

/** Fields that legitimately differ between two runs of the same call. */
function normalized(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (key, value: unknown) => {
    if (key === 'durationMs' && typeof value === 'number') return '<ms>';
    if (key === 'toolCallId' && typeof value === 'string' && value.startsWith('direct-')) return '<generated>';
    if (key === 'message' && typeof value === 'string') return value.replace(/incident [0-9a-f-]{36}/, 'incident <id>');
    return value;
  });
}

/**
 * The direct routes must answer exactly as the Nest route does. One gateway serves act and execute through
 * them, another (HTTP_DIRECT_ROUTES=false) through Express, both on the same database; every request below
 * goes to both and the answers must be equal, and the direct router must have taken it (or left it to Express).
 */
describe('direct routes (act, execute) answer exactly like the Nest routes', () => {
  let db: TestDatabase;
  let remote: RecordingHttpServer;
  let direct: TestGateway;
  let viaExpress: TestGateway;
  let directlyServed = 0;
  let runtime: { Authorization: string };
  let tenantAdmin: { Authorization: string };
  let agentId: string;
  let sessionId: string;

  /** Sends the same request to both gateways; returns both answers and whether the direct router took it. */
  const both = async (send: (http: ReturnType<typeof request>) => request.Test): Promise<{ direct: Answer; viaExpress: Answer; tookDirectly: boolean }> => {
    const answer = async (gw: TestGateway): Promise<Answer> => {
      const res = await send(gw.http);
      return { status: res.status, contentType: res.headers['content-type'], body: normalized(res.body) };
    };
    const before = directlyServed;
    const a = await answer(direct);
    const tookDirectly = directlyServed > before;
    const b = await answer(viaExpress);
    expect(directlyServed).toBe(before + (tookDirectly ? 1 : 0));
    return { direct: a, viaExpress: b, tookDirectly };
  };

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    db = await createTestDatabaseUrl('sqlite');
    const handle = DirectRouter.prototype.handle;
    jest.spyOn(DirectRouter.prototype, 'handle').mockImplementation(function (this: DirectRouter, ...args) {
      const took = handle.apply(this, args);
      if (took) directlyServed++;
      return took;
    });
    direct = await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
    viaExpress = await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', HTTP_DIRECT_ROUTES: 'false' });
    const gw = direct;
    runtime = await createKey(gw, 'acme', 'runtime');
    tenantAdmin = await createKey(gw, 'acme', 'admin');
    const tool = (await gw.http.post('/api/v1/admin/tools').set(gw.admin).send(toolBody({ name: 'lookup', tenantId: 'acme', endpoint: remote.url('/lookup') })).expect(201)).body;
    agentId = (await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'a', tenantId: 'acme' }).expect(201)).body.id;
    await gw.http.put(`/api/v1/admin/agents/${agentId}/tools`).set(gw.admin).send({ toolIds: [tool.id] }).expect(200);
    sessionId = (await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u1', permissions: [] }).expect(201)).body.id;
    await gw.http.post(`/api/v1/sessions/${sessionId}/act`).set(runtime).send(replayedAct).expect(200);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await direct?.close();
    await viaExpress?.close();
    await remote?.stop();
    await db?.drop();
  });

  const execute = '/api/v1/tools/lookup/execute';
  const replayedAct = { iteration: 1, toolCalls: [{ id: 'replayed', name: 'lookup', arguments: { q: 'r' } }] };
  const executeBody = () => ({ agentId, userId: 'u1', permissions: [], arguments: { q: 'order-1' } });

  const cases: Array<[string, (http: ReturnType<typeof request>) => request.Test]> = [
    ['a call that runs', (http) => http.post(execute).set(runtime).send(executeBody())],
    ['arguments against the schema', (http) => http.post(execute).set(runtime).send({ ...executeBody(), arguments: { q: 7 } })],
    ['no key', (http) => http.post(execute).send(executeBody())],
    ['an unknown key', (http) => http.post(execute).set(bearer('no-such-key-0123456789')).send(executeBody())],
    ['a key of the wrong role', (http) => http.post(execute).set(tenantAdmin).send(executeBody())],
    ['a body missing userId', (http) => http.post(execute).set(runtime).send({ arguments: {} })],
    ['a body with an unknown field', (http) => http.post(execute).set(runtime).send({ ...executeBody(), extra: 1 })],
    ['an array body', (http) => http.post(execute).set(runtime).send([])],
    ['an empty JSON body', (http) => http.post(execute).set(runtime).set('content-type', 'application/json').send('')],
    ['an unknown tool', (http) => http.post('/api/v1/tools/nope/execute').set(runtime).send(executeBody())],
    ['a percent-encoded tool name', (http) => http.post('/api/v1/tools/look%75p/execute').set(runtime).send(executeBody())],
    ['a trailing slash', (http) => http.post(`${execute}/`).set(runtime).send(executeBody())],
    ['a query string', (http) => http.post(`${execute}?x=1`).set(runtime).send(executeBody())],
    ['an act on an unknown session', (http) => http.post('/api/v1/sessions/00000000-0000-4000-8000-000000000000/act').set(runtime).send({ iteration: 1, toolCalls: [] })],
    ['an act with a bad body', (http) => http.post(`/api/v1/sessions/${sessionId}/act`).set(runtime).send({ iteration: 'one' })],
    ['an act replay of a finished call', (http) => http.post(`/api/v1/sessions/${sessionId}/act`).set(runtime).send(replayedAct)],
  ];

  it.each(cases)('%s', async (_name, send) => {
    const answers = await both(send);
    expect(answers.direct).toEqual(answers.viaExpress);
    expect(answers.tookDirectly).toBe(true);
  });

  it('a new act call (own toolCallId on each side)', async () => {
    const act = (gw: TestGateway, id: string) => gw.http.post(`/api/v1/sessions/${sessionId}/act`).set(runtime).send({ iteration: 1, toolCalls: [{ id, name: 'lookup', arguments: { q: 'n' } }] });
    const a = await act(direct, 'new-direct');
    const b = await act(viaExpress, 'new-express');
    expect(a.status).toBe(200);
    expect(normalized(a.body)).toEqual(JSON.parse(JSON.stringify(normalized(b.body)).replace('new-express', 'new-direct')));
    expect(a.headers['content-type']).toBe(b.headers['content-type']);
  });

  it('malformed JSON: both answer 400 VALIDATION_FAILED', async () => {
    const answers = await both((http) => http.post(execute).set(runtime).set('content-type', 'application/json').send('{"userId": '));
    for (const a of [answers.direct, answers.viaExpress]) expect(a).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED' } } });
    expect(answers.tookDirectly).toBe(true);
  });

  it('a body over the limit: both answer 413', async () => {
    const huge = JSON.stringify({ ...executeBody(), arguments: { q: 'x'.repeat(10 * 1024 * 1024) } });
    const answers = await both((http) => http.post(execute).set(runtime).set('content-type', 'application/json').send(huge));
    expect(answers.direct).toEqual(answers.viaExpress);
    expect(answers.direct).toMatchObject({ status: 413, body: { error: { code: 'PAYLOAD_TOO_LARGE' } } });
  });

  it('leaves to Express what it cannot serve the same way (text body, compressed body, other verbs)', async () => {
    const text = await both((http) => http.post(execute).set(runtime).set('content-type', 'text/plain').send('hello'));
    expect(text.direct).toEqual(text.viaExpress);
    expect(text.tookDirectly).toBe(false);
    const gzipped = gzipSync(JSON.stringify(executeBody()));
    const compressed = await both((http) => http.post(execute).set(runtime).set('content-type', 'application/json').set('content-encoding', 'gzip').send(gzipped));
    expect(compressed.direct).toEqual(compressed.viaExpress);
    expect(compressed.tookDirectly).toBe(false);
    const get = await both((http) => http.get(execute).set(runtime));
    expect(get.direct).toEqual(get.viaExpress);
    expect(get.direct.status).toBe(404);
    expect(get.tookDirectly).toBe(false);
  });
});
