import { ToolCallError } from '../tool-executor';
import { buildHttpToolRequest } from './http-request.builder';
import { platformSecretScope, tenantSecretScope } from '@app/modules/tenant-secrets/tool-secret.scope';

const secrets = platformSecretScope(new Map([['ORDERS_TOKEN', 's3cr3t-value']]));

const ctx = (toolCallId = 'c') => ({ tenantId: 'acme', userId: 'u1', sessionId: 's1', toolCallId });

function tool(
  endpoint: string,
  httpMethod: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | null,
  headers: Record<string, string> | null = null,
) {
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
      { orderId: 'a b?&', line: 3, expand: true, tags: ['x', 'y'], filter: { s: 1 }, skip: null },
      ctx('call-1'),
      secrets,
    );
    expect(req.method).toBe('GET');
    expect(req.url.pathname).toBe('/orders/a%20b%3F%26/lines/3');
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
    const req = buildHttpToolRequest(
      tool('http://api.test/orders/{id}', 'DELETE'),
      { id: 7, reason: 'dup' },
      ctx(),
      secrets,
    );
    expect(req.url.href).toBe('http://api.test/orders/7?reason=dup');
    expect(req.body).toBeUndefined();
  });

  it.each(['POST', 'PUT', 'PATCH'] as const)('%s sends the remaining arguments as a JSON body', (method) => {
    const req = buildHttpToolRequest(
      tool('http://api.test/orders/{id}', method),
      { id: 7, qty: 2, note: 'x' },
      ctx(),
      secrets,
    );
    expect(req.url.href).toBe('http://api.test/orders/7');
    expect(JSON.parse(req.body!)).toEqual({ qty: 2, note: 'x' });
    expect(req.headers['content-type']).toBe('application/json');
  });

  it('defaults to POST when the tool has no method', () => {
    expect(buildHttpToolRequest(tool('http://api.test/x', null), {}, ctx(), secrets).method).toBe('POST');
  });

  it('fills ${secret:NAME} in headers', () => {
    const req = buildHttpToolRequest(
      tool('http://api.test/x', 'POST', { Authorization: 'Bearer ${secret:ORDERS_TOKEN}', 'X-Team': 'a' }),
      {},
      ctx('call-42'),
      secrets,
    );
    expect(req.headers.authorization).toBe('Bearer s3cr3t-value');
    expect(req.headers['x-team']).toBe('a');
  });

  it('refuses a missing platform secret without naming it (tenants read the result) or revealing any value, and is not transient', () => {
    const err = thrown(() =>
      buildHttpToolRequest(
        tool('http://api.test/x', 'GET', { 'X-Key': '${secret:MISSING_ONE}', Authorization: '${secret:ORDERS_TOKEN}' }),
        {},
        ctx(),
        secrets,
      ),
    );
    expect(err).toMatchObject({ errorClass: 'SECRET_MISSING', transient: false, reachedRemote: false });
    expect(err.message).toContain('TOOL_SECRETS');
    expect(err.message).not.toContain('MISSING_ONE');
    expect(err.message).not.toContain('s3cr3t-value');
  });

  it("names a tenant's own missing secret and where to set it", () => {
    const own = tenantSecretScope('acme', {
      values: new Map([['ORDERS_TOKEN', 'tenant-value']]),
      unreadable: new Set(),
      keyConfigured: true,
    });
    const err = thrown(() =>
      buildHttpToolRequest(tool('http://api.test/x', 'GET', { 'X-Key': '${secret:MISSING_ONE}' }), {}, ctx(), own),
    );
    expect(err.errorClass).toBe('SECRET_MISSING');
    expect(err.message).toContain('PUT /api/v1/admin/tenants/acme/secrets/MISSING_ONE');
    expect(
      buildHttpToolRequest(
        tool('http://api.test/x', 'GET', { Authorization: 'Bearer ${secret:ORDERS_TOKEN}' }),
        {},
        ctx(),
        own,
      ).headers.authorization,
    ).toBe('Bearer tenant-value');
  });

  it('fills a placeholder used twice from the one argument', () => {
    const req = buildHttpToolRequest(
      tool('http://api.test/t/{id}/copy/{id}', 'POST'),
      { id: 7, note: 'x' },
      ctx(),
      secrets,
    );
    expect(req.url.pathname).toBe('/t/7/copy/7');
    expect(JSON.parse(req.body!)).toEqual({ note: 'x' });
  });

  it.each(['GET', 'DELETE'] as const)(
    '%s refuses an argument that would repeat a query parameter the endpoint fixes (the model cannot override it)',
    (method) => {
      const err = thrown(() =>
        buildHttpToolRequest(
          tool('http://api.test/orders?scope=read&tenant=acme', method),
          { status: 'open', tenant: 'globex' },
          ctx(),
          secrets,
        ),
      );
      expect(err).toMatchObject({ errorClass: 'INVALID_REQUEST', transient: false, reachedRemote: false });
      expect(err.message).toContain('"tenant"');
      expect(err.message).toContain('nothing was sent');
    },
  );

  it('fills a query placeholder, and sends arguments the endpoint does not fix next to its fixed parameters', () => {
    const req = buildHttpToolRequest(
      tool('http://api.test/search?scope=read&q={q}', 'GET'),
      { q: 'shoes', page: 2 },
      ctx(),
      secrets,
    );
    expect(req.url.search).toBe('?scope=read&q=shoes&page=2');
  });

  it('refuses a call missing a placeholder argument', () => {
    const err = thrown(() => buildHttpToolRequest(tool('http://api.test/orders/{id}', 'GET'), {}, ctx(), secrets));
    expect(err).toMatchObject({ errorClass: 'INVALID_REQUEST', transient: false, reachedRemote: false });
    expect(err.message).toContain('"id"');
  });

  it('refuses placeholders in the host, so arguments cannot choose where the call goes', () => {
    const err = thrown(() =>
      buildHttpToolRequest(tool('http://{host}/x', 'GET'), { host: '169.254.169.254' }, ctx(), secrets),
    );
    expect(err.message).toContain('placeholders are allowed only in the path and query');
    expect(() => buildHttpToolRequest(tool('http://api.test:{port}/x', 'GET'), { port: 1 }, ctx(), secrets)).toThrow(
      ToolCallError,
    );
  });

  it('reports an endpoint that is not a URL', () => {
    expect(thrown(() => buildHttpToolRequest(tool('not a url', 'GET'), {}, ctx(), secrets)).errorClass).toBe(
      'INVALID_REQUEST',
    );
  });

  describe('path placeholders', () => {
    const profile = tool('http://api.test/api/tenants/acme/users/{id}/profile?view={view}', 'GET');

    it.each([
      ['..', '"." or ".."'],
      ['.', '"." or ".."'],
      ['%2e%2e', '"." or ".."'],
      ['%2E.', '"." or ".."'],
      ['.%2e', '"." or ".."'],
      ['%252e%252E', '"." or ".."'],
      ['%25252e%25252e', '"." or ".."'],
      ['..;jsessionid=1', '"." or ".."'],
      [' .. ', '"." or ".."'],
      ['../admin', '"/" or "\\"'],
      ['a/b', '"/" or "\\"'],
      ['a%2Fb', '"/" or "\\"'],
      ['a%252fb', '"/" or "\\"'],
      ['..\\admin', '"/" or "\\"'],
      ['%5c', '"/" or "\\"'],
      ['', 'is empty'],
      ['a%00b', 'control character'],
      ['%' + '25'.repeat(12) + '2e', 'more than'],
    ])('refuses %j, naming the argument, before anything is built', (value, reason) => {
      const err = thrown(() => buildHttpToolRequest(profile, { id: value, view: 'full' }, ctx(), secrets));
      expect(err).toMatchObject({ errorClass: 'INVALID_REQUEST', transient: false, reachedRemote: false });
      expect(err.message).toContain('argument "id"');
      expect(err.message).toContain(reason);
      expect(err.message).toContain('nothing was sent');
    });

    it.each([
      ['...', '/api/tenants/acme/users/.../profile'],
      ['a.b', '/api/tenants/acme/users/a.b/profile'],
      ['.hidden', '/api/tenants/acme/users/.hidden/profile'],
      ['%41', '/api/tenants/acme/users/%2541/profile'],
      ['\uFF0E\uFF0E', '/api/tenants/acme/users/%EF%BC%8E%EF%BC%8E/profile'],
      ['a\uFF0Fb', '/api/tenants/acme/users/a%EF%BC%8Fb/profile'],
      ['Z\u00fcrich 7?', '/api/tenants/acme/users/Z%C3%BCrich%207%3F/profile'],
    ])('keeps %j as one encoded segment', (value, pathname) => {
      const req = buildHttpToolRequest(profile, { id: value, view: 'full' }, ctx(), secrets);
      expect(req.url.host).toBe('api.test');
      expect(req.url.pathname).toBe(pathname);
    });

    it.each([
      [{ a: '%2', b: 'e%2e' }, '"." or ".."'],
      [{ a: '%25', b: '2e%252e' }, '"." or ".."'],
      [{ a: '%0', b: 'a' }, 'control character'],
      [{ a: '%2', b: 'f' }, '"/" or "\\"'],
    ])('refuses values side by side in one segment that spell a bad segment together (%j)', (args, reason) => {
      const twin = tool('http://api.test/api/items/{a}{b}/details', 'GET');
      const err = thrown(() => buildHttpToolRequest(twin, args, ctx(), secrets));
      expect(err).toMatchObject({ errorClass: 'INVALID_REQUEST', transient: false, reachedRemote: false });
      expect(err.message).toContain('the path segment "{a}{b}"');
      expect(err.message).toContain(reason);
      expect(err.message).toContain('nothing was sent');
    });

    it('keeps values side by side that make a good segment together', () => {
      const twin = tool('http://api.test/api/items/{a}-{b}/{c}', 'GET');
      const req = buildHttpToolRequest(twin, { a: 'x.', b: '.y', c: 'z' }, ctx(), secrets);
      expect(req.url.pathname).toBe('/api/items/x.-.y/z');
    });

    it('allows "/" and ".." in a query placeholder, where they cannot change the path', () => {
      const req = buildHttpToolRequest(profile, { id: 7, view: '../a/b' }, ctx(), secrets);
      expect(req.url.pathname).toBe('/api/tenants/acme/users/7/profile');
      expect(req.url.searchParams.get('view')).toBe('../a/b');
    });
  });

  describe('context headers', () => {
    it('sends tenant, user, session, tool call and a derived Idempotency-Key that tool headers cannot replace', () => {
      const req = buildHttpToolRequest(
        tool('http://api.test/x', 'POST', {
          'X-Tenant-Id': 'globex',
          'x-user-id': 'admin',
          'X-Session-Id': 's0',
          'X-Tool-Call-Id': 'x',
          'Idempotency-Key': 'fixed',
        }),
        {},
        { tenantId: 'acme', userId: 'u1', sessionId: 's1', toolCallId: 'call_1' },
        secrets,
      );
      expect(req.headers).toMatchObject({
        'x-tenant-id': 'acme',
        'x-user-id': 'u1',
        'x-session-id': 's1',
        'x-tool-call-id': 'call_1',
      });
      expect(req.headers['idempotency-key']).toMatch(/^gw1-[A-Za-z0-9_-]{43}$/);
      expect(Object.keys(req.headers).filter((h) => h.toLowerCase() === 'x-tenant-id')).toHaveLength(1);
    });

    it("drops a tool's context header that the call has no value for (no session, no tenant)", () => {
      const req = buildHttpToolRequest(
        tool('http://api.test/x', 'GET', { 'X-Session-Id': 'forged', 'X-Tenant-Id': 'acme' }),
        {},
        { tenantId: null, userId: 'u', sessionId: null, toolCallId: 'c' },
        secrets,
      );
      expect(req.headers['x-session-id']).toBeUndefined();
      expect(req.headers['x-tenant-id']).toBeUndefined();
    });
  });
});
