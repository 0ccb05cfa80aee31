import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { setMaxListeners } from 'node:events';
import { Agent, request } from 'undici';

/** One pooled MCP session to a server, as a caller without the gateway would hold it. */
export interface BareMcpClient {
  /** `tools/call` of `name`; rejects when the result is an error. */
  call(name: string, args: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

/** `global`: Node's fetch, the transport's default; `undici`: undici's `request` on a keep-alive Agent (3-4x less overhead on loopback). */
export type BareFetchKind = 'undici' | 'global';

/**
 * Connects the SDK Client over streamable HTTP and keeps the one session for every call (callers share
 * it, as the gateway's pool does). With `undici` the transport's fetch is a thin adapter over undici's
 * `request`, the same kind of client the gateway uses outbound, so the bare figure is the real floor.
 */
export async function connectBareMcp(url: string, fetchKind: BareFetchKind = 'undici'): Promise<BareMcpClient> {
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: fetchKind === 'undici' ? undiciFetch(agent) : quietGlobalFetch,
  });
  const client = new Client({ name: 'bench-bare-sdk', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return {
    async call(name, args) {
      const result = await client.callTool({ name, arguments: args });
      if (result.isError) throw new Error(`bare SDK ${name} failed: ${JSON.stringify(result.content)}`);
    },
    async close() {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
      await agent.destroy();
    },
  };
}

/**
 * Node's own fetch, as the transport uses it by default; only the listener limit of the transport's long-lived
 * signal is lifted (Node warns past 1,500 concurrent abort listeners, which a long run reaches; they are
 * released as requests finish).
 */
const quietGlobalFetch = (url: string | URL, init?: RequestInit): Promise<Response> => {
  if (init?.signal) setMaxListeners(0, init.signal);
  return fetch(url, init);
};

/**
 * A `fetch` for the SDK transport over undici's `request`, for JSON exchanges: the body is read whole (the
 * benchmark server answers JSON and refuses the standalone GET stream).
 */
function undiciFetch(dispatcher: Agent): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return async (url, init = {}) => {
    // The transport passes one long-lived signal to every request: many concurrent listeners are expected.
    if (init.signal) setMaxListeners(0, init.signal);
    const res = await request(url, {
      dispatcher,
      method: (init.method ?? 'GET') as 'GET',
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      body: init.body as string | undefined,
      signal: init.signal ?? undefined,
    });
    const body = await res.body.arrayBuffer();
    const headers = new Headers();
    for (const [key, value] of Object.entries(res.headers)) {
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(key, v);
    }
    const empty = res.statusCode === 204 || res.statusCode === 304 || body.byteLength === 0;
    return new Response(empty ? null : body, { status: res.statusCode, headers });
  };
}
