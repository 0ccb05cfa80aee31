import {
  applyRemoteContextHeaders,
  headerSafe,
  idempotencyKeyOf,
  remoteCallContextOf,
  remoteCallMeta,
} from './remote-call.context';

const base = { tenantId: 'acme', userId: 'u1', sessionId: 's1', toolCallId: 'call_1' };

describe('idempotencyKeyOf', () => {
  it('is the same for the same tenant, session and toolCallId (every attempt and re-run of one journaled call)', () => {
    expect(idempotencyKeyOf({ ...base })).toBe(idempotencyKeyOf({ ...base, userId: 'someone else' }));
    expect(idempotencyKeyOf(base)).toMatch(/^gw1-[A-Za-z0-9_-]{43}$/);
  });

  it('differs when the same toolCallId comes from another session or tenant, and is never the bare toolCallId', () => {
    const keys = new Set([
      idempotencyKeyOf(base),
      idempotencyKeyOf({ ...base, sessionId: 's2' }),
      idempotencyKeyOf({ ...base, tenantId: 'globex' }),
      idempotencyKeyOf({ ...base, sessionId: null }),
      idempotencyKeyOf({ ...base, tenantId: null }),
      // Joining the parts with a separator would make these two equal.
      idempotencyKeyOf({ ...base, tenantId: 'a', sessionId: 'b:c' }),
      idempotencyKeyOf({ ...base, tenantId: 'a:b', sessionId: 'c' }),
    ]);
    expect(keys.size).toBe(7);
    expect(keys.has('call_1')).toBe(false);
  });
});

describe('headerSafe', () => {
  it.each(['u1', 'user@example.com', 'acme-corp_1', "a!#$&'()*+,/:;<=>?@[]^`{|}~z"])('sends %j as it is', (value) => {
    expect(headerSafe(value)).toBe(value);
  });

  it.each([
    ['evil\r\nX-Tenant-Id: globex', 'evil%0D%0AX-Tenant-Id:%20globex'],
    ['张三', '%E5%BC%A0%E4%B8%89'],
    ['50% off', '50%25%20off'],
    ['tab\there\u0000', 'tab%09here%00'],
    ['lone \uD800 surrogate', 'lone%20%EF%BF%BD%20surrogate'],
  ])('percent-encodes %j so that decodeURIComponent gives it back', (value, sent) => {
    expect(headerSafe(value)).toBe(sent);
    expect(sent).toMatch(/^[\x21-\x7e]*$/);
    if (!value.includes('\uD800')) expect(decodeURIComponent(sent)).toBe(value);
  });
});

describe('applyRemoteContextHeaders', () => {
  it('replaces whatever a tool set under a context header name, and encodes the runtime-supplied userId', () => {
    const headers: Record<string, string> = { 'x-tenant-id': 'globex', 'idempotency-key': 'mine', 'x-other': 'kept' };
    applyRemoteContextHeaders(headers, { ...base, userId: 'bob\r\nx-admin: 1' });
    expect(headers).toEqual({
      'x-other': 'kept',
      'x-tenant-id': 'acme',
      'x-user-id': 'bob%0D%0Ax-admin:%201',
      'x-session-id': 's1',
      'x-tool-call-id': 'call_1',
      'idempotency-key': idempotencyKeyOf(base),
    });
  });
});

describe('remoteCallMeta', () => {
  it('carries the context as JSON (null where there is none) with the same idempotency key', () => {
    const ctx = remoteCallContextOf({ tenantId: 'acme', userId: '张三', toolCallId: 'call_1' });
    expect(remoteCallMeta(ctx)).toEqual({
      tenantId: 'acme',
      userId: '张三',
      sessionId: null,
      toolCallId: 'call_1',
      idempotencyKey: idempotencyKeyOf(ctx),
    });
  });
});
