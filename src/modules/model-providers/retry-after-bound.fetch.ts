import type { OutboundFetch } from '@app/modules/executors/outbound/outbound-http.agent';

/**
 * How long the OpenAI client waits before it asks again after the error answer with these headers: `retry-after-ms`,
 * else `Retry-After` (seconds, or an HTTP date); undefined when neither says (the client backs off on its own, at most
 * 8 s). Read as the client reads them (openai 6 `retryRequest`), not as the HTTP tools' parser does: what is bounded
 * is the wait the client would really make, with no bound of its own.
 */
export function retryAfterAskedMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = parseFloat(headers?.get('retry-after-ms') ?? '');
  let wait = Number.isNaN(ms) ? undefined : ms;
  const header = headers?.get('retry-after');
  if (header && !wait) {
    const seconds = parseFloat(header);
    wait = Number.isNaN(seconds) ? Date.parse(header) - now : seconds * 1000;
  }
  return wait === undefined || Number.isNaN(wait) ? undefined : wait;
}

/**
 * A provider's `fetch` whose error answers asking for a wait longer than `maxMs` (MODEL_RETRY_MAX_AFTER_MS) are not
 * asked again: the OpenAI client honours `Retry-After` and `retry-after-ms` whatever their length, in a wait nothing
 * cuts (not a closed session, not a shutdown), so a provider answering 429 with `Retry-After: 86400` held a run worker
 * for a day. Such an answer is marked `x-should-retry: false`, which the client obeys; the run fails with its reason.
 */
export function retryAfterBoundFetch(inner: OutboundFetch, maxMs: number): OutboundFetch {
  return async (url, init) => {
    const res = await inner(url, init);
    if (res.ok) return res;
    const asked = retryAfterAskedMs(res.headers);
    if (asked === undefined || asked <= maxMs) return res;
    const headers = new Headers(res.headers);
    headers.set('x-should-retry', 'false');
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  };
}
