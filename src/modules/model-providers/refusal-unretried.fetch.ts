import type { OutboundFetch } from '@app/modules/executors/outbound/outbound-http.agent';
import { randomUUID } from 'node:crypto';
import { ToolCallError } from '@app/modules/executors/tool-executor';

/** Set on the answer made up for a request that never left the gateway: its message is the refusal's own words. */
const REFUSED_BEFORE_SENDING = 'x-gateway-refused-before-sending';
/** The header's value: this process's own, so that a provider sending the header cannot pass its error for a refusal. */
const REFUSAL_MARK = randomUUID();

/** Whether an answer's headers mark it as made up by {@link refusalUnretriedFetch} for a request never sent. */
export function refusedBeforeSending(headers: Headers | undefined): boolean {
  return headers?.get(REFUSED_BEFORE_SENDING) === REFUSAL_MARK;
}

/**
 * A provider's `fetch` whose requests refused before anything was sent (the outbound guard: a private address, a
 * host reserved for the platform; a host name DNS says does not exist) are not tried again. The OpenAI client retries
 * every failed connection, with back-off, and then reported "no answer after 3 attempts"; an answer marked
 * `x-should-retry: false` it does not retry, so the refusal comes back as one (HTTP 403, never sent), carrying the
 * refusal's words, which {@link refusedBeforeSending} tells the caller to show as they are.
 */
export function refusalUnretriedFetch(inner: OutboundFetch): OutboundFetch {
  return async (url, init) => {
    try {
      return await inner(url, init);
    } catch (err) {
      const refusal = refusalIn(err);
      if (!refusal) throw err;
      return new Response(JSON.stringify({ error: { message: refusal.message } }), {
        status: 403,
        headers: {
          'content-type': 'application/json',
          'x-should-retry': 'false',
          [REFUSED_BEFORE_SENDING]: REFUSAL_MARK,
        },
      });
    }
  };
}

/** The refusal that caused `err` (fetch wraps a connection's error as its cause), if one did. */
function refusalIn(err: unknown): ToolCallError | undefined {
  let current = err;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    if (current instanceof ToolCallError) return !current.transient && !current.reachedRemote ? current : undefined;
    current = current.cause;
  }
  return undefined;
}
