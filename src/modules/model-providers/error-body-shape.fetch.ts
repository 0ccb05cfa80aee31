import type { OutboundFetch } from '@app/modules/executors/outbound/outbound-http.agent';

/**
 * A provider's `fetch` whose error answers reach the OpenAI client in OpenAI's shape, `{error: {...}}`: servers that
 * put the error's fields at the top level (vLLM before 0.6, FastChat: `{object: "error", message, type, code}`) had
 * their reason dropped by the client, so a run failed with a bare "HTTP 404" and a context-length refusal was not
 * recognised. Only a JSON error answer with a top-level `message` and no `error` is rewritten; `inner` bounds it.
 */
export function errorBodyShapeFetch(inner: OutboundFetch): OutboundFetch {
  return async (url, init) => {
    const res = await inner(url, init);
    if (res.ok || !res.body || !/\bjson\b/i.test(res.headers.get('content-type') ?? '')) return res;
    const text = await res.text();
    const body = parsed(text);
    const reshaped = body && !('error' in body) && 'message' in body ? JSON.stringify({ error: body }) : text;
    const headers = new Headers(res.headers);
    headers.delete('content-length');
    headers.delete('content-encoding'); // the text is decoded already
    return new Response(reshaped, { status: res.status, statusText: res.statusText, headers });
  };
}

function parsed(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
