/**
 * The floor a gateway cannot go below on this machine: a minimal HTTP → MCP proxy, run as its own process like
 * the gateway. It does only what any gateway must (one more HTTP hop in, JSON parse, one pooled MCP session
 * out over undici, JSON answer back): no keys, no registry, no validation, no journal. Benchmarks put it beside
 * the gateway, so the figures separate what the extra hop costs here from what the gateway's own work costs.
 * Prints `FLOOR_PROXY_LISTENING <port>`; exits when its stdin closes.
 * Run: MCP_URL=http://127.0.0.1:<port>/mcp node -r @swc-node/register bench/support/floor-proxy.server.ts
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';

export const FLOOR_PROXY_READY_PREFIX = 'FLOOR_PROXY_LISTENING ';

async function main(): Promise<void> {
  const target = new URL(process.env.MCP_URL!);
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-06-18',
  };
  let nextId = 0;
  const rpc = async (message: Record<string, unknown>): Promise<any> => {
    const res = await agent.request({
      origin: target.origin,
      path: target.pathname,
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', ...message }),
    });
    const session = res.headers['mcp-session-id'];
    if (typeof session === 'string') headers['mcp-session-id'] = session;
    const text = await res.body.text();
    return text ? JSON.parse(text) : undefined;
  };
  await rpc({
    id: ++nextId,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'floor-proxy', version: '1.0.0' } },
  });
  await rpc({ method: 'notifications/initialized' });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { name, arguments: args } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        name: string;
        arguments: unknown;
      };
      rpc({ id: ++nextId, method: 'tools/call', params: { name, arguments: args } }).then(
        (answer) => {
          const body = JSON.stringify({ status: 'COMPLETED', content: answer.result.content[0].text });
          res
            .writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
            .end(body);
        },
        (err: Error) => res.writeHead(502).end(err.message),
      );
    });
  });
  server.listen(0, '127.0.0.1', () =>
    process.stdout.write(`${FLOOR_PROXY_READY_PREFIX}${(server.address() as AddressInfo).port}\n`),
  );
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
}

if (require.main === module) void main();
