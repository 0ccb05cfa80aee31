import { ToolCallError } from '../tool-executor';
import { buildHttpToolRequest } from './http-request.builder';
import { platformSecretScope, tenantSecretScope } from '@app/modules/tenant-secrets/tool-secret.scope';

const secrets = platformSecretScope(new Map([['ORDERS_TOKEN', 's3cr3t-value']]));

function tool(endpoint: string, httpMethod: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | null, headers: Record<string, string> | null = null) {
  return { name: 'orders_tool', endpoint, httpMethod, headers };
}

function thrown(fn: () => unknown): ToolCallError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ToolCallError);
    return err as ToolCallError;
  }
  throw new Error('expected a ToolCallError');
}

describe('buildHttpToolRequest', () => {
  it('fills path placeholders URL-encoded and consumes them; GET sends the rest as the query string', () => {
    const req = buildHttpToolRequest(
      tool('http://api.test/orders/{orderId}/lines/{line}?v=1', 'GET'),
      { orderId: 'a/b c?', line: 3, expand: true, tags: ['x', 'y'], filter: { s: 1 }, skip: null },
      'call-1',
      secrets,
    );
    expect(req.method).toBe('GET');
    expect(req.url.pathname).toBe('/orders/a%2Fb%20c%3F/lines/3');
    expect(req.url.searchParams.get('v')).toBe('1');
    expect(req.url.searchParams.get('expand')).toBe('true');
    expect(req.url.searchParams.getAll('tags')).toEqual(['x', 'y']);
    expect(req.url.searchParams.get('filter')).toBe('{"s":1}');
    expect(req.url.searchParams.has('skip')).toBe(false);
    expect(req.url.searchParams.has('orderId')).toBe(false);
    expect(req.body).toBeUndefined();
    expect(req.headers['content-type']).toBeUndefined();
  });

  it('DELETE also uses the query string', () => {
    const req = buildHttpToolRequest(tool('http://api.test/orders/{id}', 'DELETE'), { id: 7, reason: 'dup' }, 'c', secrets);
    expect(req.url.href).toBe('http://api.test/orders/7?reason=dup');
    expect(req.body).toBeUndefined();
  });

  it.each(['POST', 'PUT', 'PATCH'] as const)('%s sends the remaining arguments as a JSON body', (method) => {
    const req = buildHttpToolRequest(tool('http://api.test/orders/{id}', method), { id: 7, qty: 2, note: 'x' }, 'c', secrets);
    expect(req.url.href).toBe('http://api.test/orders/7');
    expect(JSON.parse(req.body!)).toEqual({ qty: 2, note: 'x' });
    expect(req.headers['content-type']).toBe('application/json');
  });

  it('defaults to POST when the tool has no method', () => {
    expect(buildHttpToolRequest(tool('http://api.test/x', null), {}, 'c', secrets).method).toBe('POST');
  });

  it('fills ${secret:NAME} in headers and sends the toolCallId as Idempotency-Key, which a tool header cannot replace', () => {
    const req = buildHttpToolRequest(
      tool('http://api.test/x', 'POST', { Authorization: 'Bearer ${secret:ORDERS_TOKEN}', 'Idempotency-Key': 'fixed', 'X-Team': 'a' }),
      {},
      'call-42',
      secrets,
    );
    expect(req.headers.authorization).toBe('Bearer s3cr3t-value');
    expect(req.headers['x-team']).toBe('a');
    expect(req.headers['idempotency-key']).toBe('call-42');
  });

  it('refuses a missing platform secret without naming it (tenants read the result) or revealing any value, and is not transient', () => {
    const err = thrown(() =>
      buildHttpToolRequest(tool('http://api.test/x', 'GET', { 'X-Key': '${secret:MISSING_ONE}', Authorization: '${secret:ORDERS_TOKEN}' }), {}, 'c', secrets),
    );
    expect(err).toMatchObject({ errorClass: 'SECRET_MISSING', transient: false, reachedRemote: false });
    expect(err.message).toContain('TOOL_SECRETS');
    expect(err.message).not.toContain('MISSING_ONE');
    expect(err.message).not.toContain('s3cr3t-value');
  });

  it("names a tenant's own missing secret and where to set it", () => {
    const own = tenantSecretScope('acme', { values: new Map([['ORDERS_TOKEN', 'tenant-value']]), unreadable: new Set(), keyConfigured: true });
    const err = thrown(() => buildHttpToolRequest(tool('http://api.test/x', 'GET', { 'X-Key': '${secret:MISSING_ONE}' }), {}, 'c', own));
    expect(err.errorClass).toBe('SECRET_MISSING');
    expect(err.message).toContain('PUT /api/v1/admin/tenants/acme/secrets/MISSING_ONE');
    expect(buildHttpToolRequest(tool('http://api.test/x', 'GET', { Authorization: 'Bearer ${secret:ORDERS_TOKEN}' }), {}, 'c', own).headers.authorization).toBe('Bearer tenant-value');
  });

  it('refuses a call missing a placeholder argument', () => {
    const err = thrown(() => buildHttpToolRequest(tool('http://api.test/orders/{id}', 'GET'), {}, 'c', secrets));
    expect(err).toMatchObject({ errorClass: 'INVALID_REQUEST', transient: false, reachedRemote: false });
    expect(err.message).toContain('"id"');
  });

  it('refuses placeholders in the host, so arguments cannot choose where the call goes', () => {
    const err = thrown(() => buildHttpToolRequest(tool('http://{host}/x', 'GET'), { host: '169.254.169.254' }, 'c', secrets));
    expect(err.message).toContain('placeholders are allowed only in the path and query');
    expect(() => buildHttpToolRequest(tool('http://api.test:{port}/x', 'GET'), { port: 1 }, 'c', secrets)).toThrow(ToolCallError);
  });

  it('keeps the encoded value inside its path segment even when it looks like a URL', () => {
    const req = buildHttpToolRequest(tool('http://api.test/files/{name}', 'GET'), { name: '../../admin@evil.com:80/#' }, 'c', secrets);
    expect(req.url.host).toBe('api.test');
    expect(req.url.pathname).toBe('/files/..%2F..%2Fadmin%40evil.com%3A80%2F%23');
  });

  it('reports an endpoint that is not a URL', () => {
    expect(thrown(() => buildHttpToolRequest(tool('not a url', 'GET'), {}, 'c', secrets)).errorClass).toBe('INVALID_REQUEST');
  });
});
