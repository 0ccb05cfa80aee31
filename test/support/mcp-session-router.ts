import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

interface SdkServer {
  connect(transport: StreamableHTTPServerTransport): Promise<void>;
  close(): Promise<void>;
}

/**
 * Routes a test MCP server's streamable-HTTP requests to one SDK server per session, as a stateful server
 * does: `initialize` opens a session, an unknown session id gets 404 (the spec's answer), anything else
 * without a session gets 400.
 */
export class McpSessionRouter<S extends SdkServer> {
  readonly sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: S }>();
  initializeCount = 0;

  /** `jsonResponse`: answer POSTs with one JSON body instead of an SSE stream (the transport's enableJsonResponse). */
  constructor(
    private readonly createServer: () => S,
    private readonly options: { jsonResponse?: boolean } = {},
  ) {}

  /** Closes every session's server and forgets the sessions (a stopped server keeps none). */
  async closeAll(): Promise<void> {
    const open = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(open.map((s) => s.server.close().catch(() => undefined)));
  }

  async route(req: IncomingMessage, res: ServerResponse, body: { method?: string } | undefined): Promise<void> {
    const sessionId = req.headers['mcp-session-id'] as string | undefined;
    let session = sessionId ? this.sessions.get(sessionId) : undefined;
    if (sessionId && !session) {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
      return;
    }
    if (!session) {
      if (req.method !== 'POST' || body?.method !== 'initialize') {
        res.writeHead(400).end('initialize first');
        return;
      }
      this.initializeCount++;
      const server = this.createServer();
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: this.options.jsonResponse ?? false,
        onsessioninitialized: (id) => void this.sessions.set(id, { transport, server }),
      });
      transport.onclose = () => {
        if (transport.sessionId) this.sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      session = { transport, server };
    }
    await session.transport.handleRequest(req, res, body);
  }
}

/** The JSON body of a request (undefined when empty). */
export async function readJsonBody(
  req: IncomingMessage,
): Promise<{ method?: string; params?: Record<string, unknown> } | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}
