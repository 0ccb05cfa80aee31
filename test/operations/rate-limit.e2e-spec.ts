import { createKey, gatewayForSuite } from '@test/support/gateway-test-app';

const PER_MINUTE = 6;

/** RATE_LIMIT_PER_MINUTE: Nest's throttler as a global guard, counting each API key's requests over every route. */
describe('RATE_LIMIT_PER_MINUTE', () => {
  const suite = gatewayForSuite('sqlite', { RATE_LIMIT_PER_MINUTE: String(PER_MINUTE) });

  it('limits a key over every route together, with a 429 saying when to retry, and leaves other keys alone', async () => {
    const gw = suite.gw;
    const [first, second] = [await createKey(gw, 'acme'), await createKey(gw, 'acme')];
    // Half of them read (the key guard authenticates them), half send a body (authenticated before it is read): one
    // count, so the limiter keys both on the API key whichever way it was authenticated.
    for (let i = 0; i < PER_MINUTE / 2; i++) {
      await gw.http.get('/api/v1/sessions/no-such-session').set(first).expect(404);
      await gw.http.post('/api/v1/sessions').set(first).send({}).expect(400);
    }
    const limited = await gw.http.get('/api/v1/sessions/no-such-session').set(first).expect(429);
    expect(limited.body.error.code).toBe('TOO_MANY_REQUESTS');
    expect(limited.body.error.message).toBe(
      `This API key sent more requests within a minute than RATE_LIMIT_PER_MINUTE (${PER_MINUTE}) allows on this gateway instance; wait ${limited.headers['retry-after']} s (see the Retry-After header) and retry, and spread its requests out (the operator may raise RATE_LIMIT_PER_MINUTE).`,
    );
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    await gw.http.post('/api/v1/sessions').set(first).send({}).expect(429);
    // Refused before its body is read: a body that does not parse gets the 429 too, not a 400, with its Retry-After.
    const unread = await gw.http
      .post('/api/v1/sessions')
      .set(first)
      .set('Content-Type', 'application/json')
      .send('{"not json')
      .expect(429);
    expect(unread.body.error.code).toBe('TOO_MANY_REQUESTS');
    expect(unread.body.error.message).toBe(
      `This API key sent more requests within a minute than RATE_LIMIT_PER_MINUTE allows on this gateway instance; wait ${unread.headers['retry-after']} s (see the Retry-After header) and retry, and spread its requests out (the operator may raise RATE_LIMIT_PER_MINUTE).`,
    );
    expect(Number(unread.headers['retry-after'])).toBeGreaterThan(0);

    const other = await gw.http.get('/api/v1/sessions/no-such-session').set(second).expect(404);
    expect(other.headers['x-ratelimit-remaining']).toBe(String(PER_MINUTE - 1));
  });

  it('never limits the health probe, and answers a request without a valid key 401, not 429', async () => {
    const gw = suite.gw;
    for (let i = 0; i < PER_MINUTE + 2; i++) {
      await gw.http.get('/health').expect(200);
      await gw.http.get('/api/v1/sessions/no-such-session').set({ Authorization: 'Bearer not-a-key' }).expect(401);
    }
  });
});
