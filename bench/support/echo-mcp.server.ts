/**
 * A lean MCP server for the benchmarks, run as its own process: the SDK's McpServer with one `echo` tool
 * on node:http and StreamableHTTPServerTransport in JSON-response mode (stateful sessions; GET answers
 * 405, so clients open no standalone SSE stream). Prints `ECHO_MCP_LISTENING <port>` once listening and
 * exits when its stdin closes (the parent went away).
 * Run: node -r @swc-node/register bench/support/echo-mcp.server.ts
 */
import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** The line the parent waits for. */
export const ECHO_MCP_READY_PREFIX = 'ECHO_MCP_LISTENING ';

const sessions = new Map<string, StreamableHTTPServerTransport>();

function createEchoServer(): McpServer {
  const mcp = new McpServer({ name: 'bench-echo', version: '1.0.0' });
  mcp.registerTool(
    'echo',
    { description: 'Returns the message', inputSchema: { message: z.string() } },
    async ({ message }) => ({
      content: [{ type: 'text', text: message }],
    }),
  );
  return mcp;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method === 'GET') return void res.writeHead(405, { allow: 'POST, DELETE' }).end();
  const body = req.method === 'POST' ? await readJson(req) : undefined;
  const sessionId = req.headers['mcp-session-id'] as string | undefined;
  let transport = sessionId ? sessions.get(sessionId) : undefined;
  if (sessionId && !transport) {
    res.writeHead(404, { 'content-type': 'application/json' });
    return void res.end(
      JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }),
    );
  }
  if (!transport) {
    if ((body as { method?: string } | undefined)?.method !== 'initialize')
      return void res.writeHead(400).end('initialize first');
    const created = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => void sessions.set(id, created),
    });
    created.onclose = () => {
      if (created.sessionId) sessions.delete(created.sessionId);
    };
    await createEchoServer().connect(created);
    transport = created;
  }
  await transport.handleRequest(req, res, body);
}

function main(): void {
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  });
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    process.stdout.write(`${ECHO_MCP_READY_PREFIX}${(server.address() as AddressInfo).port}\n`);
  });
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
}

if (require.main === module) main();
