import { createServer, request as httpRequest, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiKeyResolver, AuthContext } from '../../auth/auth-context';
import { DomainError } from '../../errors/domain-error';
import { CommonErrorCode } from '../../errors/common.errors';
import type { DirectRouteDefinition } from './direct-route.compiler';
import { DirectRouter } from './direct-router';

const KEYS: Record<string, AuthContext> = { 'runtime-key': { keyId: 'k1', role: 'runtime', tenantId: 'acme' } };
const resolver: ApiKeyResolver = { resolve: async (key) => KEYS[key] ?? null };

/** A route whose behaviour the test picks through the body: echo, domain error, crash, unserializable answer. */
const route: DirectRouteDefinition = {
  method: 'POST',
  path: '/api/v1/things/:id/do',
  roles: ['runtime'],
  status: 200,
  where: 'Test.do',
  invoke: async (auth, params, body) => {
    const what = (body as { what?: string }).what;
    if (what === 'domain') throw new DomainError(CommonErrorCode.NOT_FOUND, 'no such thing');
    if (what === 'crash') throw new Error('boom');
    if (what === 'cycle') {
      const a: Record<string, unknown> = {};
      a.self = a;
      return a;
    }
    return { tenant: auth?.tenantId, id: params.id, body };
  },
};

describe('DirectRouter', () => {
  let server: Server;
  let port: number;
  let toExpress = 0;

  beforeAll(async () => {
    const router = new DirectRouter([route], resolver, 1024);
    server = createServer((req, res) => {
      if (router.handle(req, res)) return;
      toExpress++;
      res.writeHead(418).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  /** Sends a request; `chunks` go out one by one without a content-length (chunked). */
  const send = (path: string, chunks: string[], headers: Record<string, string> = {}) =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer runtime-key', ...headers } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
      });
      req.on('error', reject);
      for (const c of chunks) req.write(c);
      req.end();
    });

  it('serves a matching route with its auth, decoded params and parsed body', async () => {
    const res = await send('/API/v1/things/a%20b/do/?x=1', ['{"what":', '"echo"}']);
    expect(res).toEqual({ status: 200, body: { tenant: 'acme', id: 'a b', body: { what: 'echo' } } });
  });

  it('maps a domain error and an unexpected one like the filter does (the crash as a 500 with an incident id)', async () => {
    expect(await send('/api/v1/things/1/do', ['{"what":"domain"}'])).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    const crash = await send('/api/v1/things/1/do', ['{"what":"crash"}']);
    expect(crash).toMatchObject({ status: 500, body: { error: { code: 'INTERNAL', details: { incidentId: expect.any(String) } } } });
    expect(crash.body.error.message).not.toContain('boom');
  });

  it('answers 500 for an answer that cannot be serialized, instead of dropping the request', async () => {
    expect(await send('/api/v1/things/1/do', ['{"what":"cycle"}'])).toMatchObject({ status: 500, body: { error: { code: 'INTERNAL' } } });
  });

  it('stops reading a chunked body past the limit with 413', async () => {
    const chunks = Array.from({ length: 8 }, () => `"${'x'.repeat(200)}",`);
    expect(await send('/api/v1/things/1/do', ['[', ...chunks, '0]'])).toMatchObject({ status: 413, body: { error: { code: 'PAYLOAD_TOO_LARGE' } } });
  });

  it('checks the key after reading the body, as the guard runs after the body parser', async () => {
    expect(await send('/api/v1/things/1/do', ['{"what":"echo"}'], { authorization: 'Bearer nope' })).toMatchObject({ status: 401 });
    expect(await send('/api/v1/things/1/do', ['{"what":'], { authorization: 'Bearer nope' })).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_FAILED' } } });
  });

  it('leaves other paths and non-JSON bodies to the next listener', async () => {
    const before = toExpress;
    expect((await send('/api/v1/things/1/other', ['{}'])).status).toBe(418);
    expect((await send('/api/v1/things/1/do', ['hello'], { 'content-type': 'text/plain' })).status).toBe(418);
    expect(toExpress - before).toBe(2);
  });
});
