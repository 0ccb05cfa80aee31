import { retryAfterAskedMs, retryAfterBoundFetch } from './retry-after-bound.fetch';

const answering = (status: number, headers: Record<string, string>) => (): Promise<Response> =>
  Promise.resolve(new Response('{"error":{"message":"slow down"}}', { status, headers }));

describe('retryAfterAskedMs', () => {
  it('reads retry-after-ms first, then Retry-After in seconds or as a date, as the OpenAI client does', () => {
    const now = Date.parse('2026-12-01T00:00:00Z');
    expect(retryAfterAskedMs(new Headers({ 'retry-after-ms': '1500', 'retry-after': '9' }), now)).toBe(1500);
    expect(retryAfterAskedMs(new Headers({ 'retry-after': '2.5' }), now)).toBe(2500);
    expect(retryAfterAskedMs(new Headers({ 'retry-after': 'Tue, 01 Dec 2026 01:00:00 GMT' }), now)).toBe(3_600_000);
    expect(retryAfterAskedMs(new Headers({ 'retry-after': 'soon' }), now)).toBe(undefined);
    expect(retryAfterAskedMs(new Headers(), now)).toBe(undefined);
    expect(retryAfterAskedMs(undefined, now)).toBe(undefined);
  });
});

describe('retryAfterBoundFetch', () => {
  it('marks an error answer asking for a longer wait than the bound as not to be retried, body kept', async () => {
    const asking: Array<Record<string, string>> = [{ 'retry-after': '86400' }, { 'retry-after-ms': '600001' }];
    for (const headers of asking) {
      const res = await retryAfterBoundFetch(answering(429, headers), 600_000)('http://model/v1/chat/completions');
      expect(res.status).toBe(429);
      expect(res.headers.get('x-should-retry')).toBe('false');
      expect(await res.text()).toContain('slow down');
    }
  });

  it('leaves a wait within the bound, an answer without one and a success to the client', async () => {
    for (const [status, headers] of [
      [503, { 'retry-after': '60' }],
      [429, { 'retry-after-ms': '60000' }],
      [500, {}],
      [200, { 'retry-after': '86400' }],
    ] as const) {
      const res = await retryAfterBoundFetch(answering(status, headers), 60_000)('http://model/v1/chat/completions');
      expect(res.headers.get('x-should-retry')).toBe(null);
    }
  });
});
