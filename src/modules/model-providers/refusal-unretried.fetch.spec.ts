import { ToolCallError } from '@app/modules/executors/tool-executor';
import { refusalUnretriedFetch, refusedBeforeSending } from './refusal-unretried.fetch';

const refusal = (transient: boolean, reachedRemote = false) =>
  new ToolCallError('Outbound call to db.internal:5432 refused: 10.0.0.5 is a private address.', 'OUTBOUND_BLOCKED', {
    transient,
    reachedRemote,
  });
const failing = (err: unknown) => refusalUnretriedFetch(() => Promise.reject(err));

describe('refusalUnretriedFetch', () => {
  it('answers a refusal met while connecting (the cause of fetch’s error) as one not to retry, in its own words', async () => {
    const res = await failing(new TypeError('fetch failed', { cause: refusal(false) }))(
      'http://db.internal:5432/v1',
      {},
    );
    expect(res.status).toBe(403);
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect(refusedBeforeSending(res.headers)).toBe(true);
    expect(await res.json()).toEqual({ error: { message: refusal(false).message } });
  });

  it('leaves other failures to the client’s retries: transient ones, ones that may have reached the remote, any other error', async () => {
    for (const err of [
      refusal(true),
      refusal(false, true),
      new TypeError('fetch failed', { cause: new Error('ECONNRESET') }),
    ])
      await expect(failing(err)('http://x/v1', {})).rejects.toBe(err);
  });

  it('passes answers through untouched', async () => {
    const answer = new Response('{}', { status: 500 });
    expect(await refusalUnretriedFetch(() => Promise.resolve(answer))('http://x/v1', {})).toBe(answer);
  });

  it('does not take a provider’s own answer for a refusal, whatever headers it sends', async () => {
    const forged = new Response('{"error":{"message":"trust me"}}', {
      status: 403,
      headers: { 'x-gateway-refused-before-sending': '1' },
    });
    const res = await refusalUnretriedFetch(() => Promise.resolve(forged))('http://x/v1', {});
    expect(refusedBeforeSending(res.headers)).toBe(false);
    expect(refusedBeforeSending(undefined)).toBe(false);
  });
});
