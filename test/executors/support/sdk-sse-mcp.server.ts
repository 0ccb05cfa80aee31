import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { z } from 'zod';
import { closeHttpServer, listenOnLoopback } from '@test/support/loopback-http';
import { readJsonBody } from '@test/support/mcp-session-router';

/** What serves one session: the SDK's McpServer, or its low-level Server for answers McpServer does not give. */
export interface SseSessionServer {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

/**
 * An MCP server of our own on the legacy HTTP+SSE transport (the SDK's SSEServerTransport: GET `/sse` opens the
 * stream, POST `/messages?sessionId=` carries requests), so the gateway's SDK-client path is exercised. By default
 * an McpServer with one tool, `echo`, which records the `_meta` it received; `sessionServer` serves each session
 * with another SDK server instead.
 */
export class SdkSseMcpServer {
  readonly echoMetas: unknown[] = [];
  private readonly transports = new Map<string, { transport: SSEServerTransport; server: SseSessionServer }>();
  private http?: Server;
  private port = 0;

  constructor(private readonly sessionServer: () => SseSessionServer = () => this.createMcpServer()) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/sse`;
  }

  async start(): Promise<this> {
    this.http = createServer((req, res) => void this.handle(req, res).catch(() => res.writeHead(500).end()));
    this.port = await listenOnLoopback(this.http);
    return this;
  }

  async stop(): Promise<void> {
    const open = [...this.transports.values()];
    this.transports.clear();
    await Promise.all(open.map((s) => s.server.close().catch(() => undefined)));
    if (this.http) await closeHttpServer(this.http);
    this.http = undefined;
  }

  /** Ends every open SSE stream, as a server that goes away mid-call does. */
  async dropStreams(): Promise<void> {
    await Promise.all([...this.transports.values()].map((s) => s.transport.close()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      const server = this.sessionServer();
      this.transports.set(transport.sessionId, { transport, server });
      transport.onclose = () => void this.transports.delete(transport.sessionId);
      await server.connect(transport);
      return;
    }
    const session =
      req.method === 'POST' && url.pathname === '/messages'
        ? this.transports.get(url.searchParams.get('sessionId') ?? '')
        : undefined;
    if (!session) return void res.writeHead(404).end('no such session');
    await session.transport.handlePostMessage(req, res, await readJsonBody(req));
  }

  private createMcpServer(): McpServer {
    const mcp = new McpServer({ name: 'sdk-sse-test-server', version: '1.0.0' });
    mcp.registerTool(
      'echo',
      { description: 'echo', inputSchema: { message: z.string() } },
      async ({ message }, extra) => {
        this.echoMetas.push(extra._meta);
        return { content: [{ type: 'text', text: `echo: ${message}` }] };
      },
    );
    return mcp;
  }
}
