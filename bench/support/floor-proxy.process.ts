import { startBenchProcess } from './bench-process';
import { FLOOR_PROXY_READY_PREFIX } from './floor-proxy.server';
import { JsonClient } from './json-client';

/** The floor proxy (see floor-proxy.server.ts) in its own process, with a client like the gateway's. */
export interface FloorProxy {
  /** One `echo`-style call through the proxy. */
  call(name: string, args: Record<string, unknown>): Promise<void>;
  stop(): Promise<void>;
}

export async function startFloorProxy(mcpUrl: string): Promise<FloorProxy> {
  const peer = await startBenchProcess('bench/support/floor-proxy.server.ts', FLOOR_PROXY_READY_PREFIX, {
    MCP_URL: mcpUrl,
  });
  const http = new JsonClient(`http://127.0.0.1:${peer.port}`, {});
  return {
    async call(name, args) {
      const res = await http.post('/call', { name, arguments: args });
      if (res.status !== 'COMPLETED') throw new Error(`floor proxy answered ${JSON.stringify(res)}`);
    },
    async stop() {
      await http.close();
      await peer.stop();
    },
  };
}
