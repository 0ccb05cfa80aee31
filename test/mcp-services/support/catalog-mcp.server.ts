import { createServer, IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import { closeHttpServer, listenOnLoopback } from '@test/support/loopback-http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpSessionRouter, readJsonBody } from '@test/support/mcp-session-router';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';

/** A tool as the catalog serves it (any JSON Schema, any annotations). */
export type CatalogTool = Tool;

/** Options of {@link CatalogMcpServer}. */
export interface CatalogMcpServerOptions {
  /** Shown in every tool result, so a test can tell which server (instance) answered. */
  label?: string;
  /** Answer tools/list in pages of this size (nextCursor), as servers with long lists do. */
  pageSize?: number;
  /**
   * Quote the Authorization header of each tools/call in its answer (text and structured result), as a server that
   * echoes the credentials it was sent does.
   */
  echoAuthorization?: boolean;
}

/** How the server answers tools/call while {@link CatalogMcpServer.failCalls} is set: HTTP 500 after reading it. */
export type CallFailure = 'http-500';

/** A simple tool with one string argument; override anything. */
export function catalogTool(name: string, overrides: Partial<CatalogTool> = {}): CatalogTool {
  return {
    name,
    description: `The ${name} tool.`,
    inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
    ...overrides,
  };
}

/**
 * An MCP server built on the SDK's `Server` over stateful streamable HTTP (one session per client, any
 * path), serving a tool catalog a test can change at run time: {@link setTools} swaps the list and sends
 * `notifications/tools/list_changed` on every open session, as a redeployed server would. tools/list pages
 * by `pageSize`; tools/call answers `<label>:<tool>:<arguments JSON>`. It counts lists, calls and sessions,
 * can fail tools/call with HTTP 500 ({@link failCalls}), can hold tools/list answers back ({@link holdLists}) and restarts on the same port.
 */
export class CatalogMcpServer {
  listCalls = 0;
  readonly calls: Array<{ tool: string; args: unknown }> = [];
  /** The JSON-RPC method (or the HTTP method when there is no body) and the headers of every request received. */
  readonly requests: Array<{ method: string; authorization: string | undefined; headers: IncomingMessage['headers'] }> =
    [];
  /** The `params._meta` of every tools/call the SDK server handled, in order. */
  readonly callMetas: unknown[] = [];
  /** Every tools/call received while set is answered with an HTTP 500 (the request reached the server). */
  failCalls: CallFailure | null = null;
  private tools: CatalogTool[];
  private readonly router = new McpSessionRouter(() => this.createServer());
  private get sessions() {
    return this.router.sessions;
  }
  get initializeCount(): number {
    return this.router.initializeCount;
  }
  private http?: HttpServer;
  private fixedPort = 0;
  private held: Promise<void> | null = null;
  private releaseHeld: (() => void) | null = null;

  constructor(
    tools: CatalogTool[] = [],
    private readonly options: CatalogMcpServerOptions = {},
  ) {
    this.tools = [...tools];
  }

  get port(): number {
    return this.fixedPort;
  }

  /** `http://127.0.0.1:<port>/mcp`; any other path serves the same catalog. */
  get url(): string {
    return `http://127.0.0.1:${this.fixedPort}/mcp`;
  }

  get label(): string {
    return this.options.label ?? `catalog-${this.fixedPort}`;
  }

  get toolNames(): string[] {
    return this.tools.map((t) => t.name);
  }

  async start(): Promise<this> {
    this.http = createServer((req, res) => void this.handle(req, res).catch(() => res.writeHead(500).end()));
    this.fixedPort = await listenOnLoopback(this.http, this.fixedPort);
    return this;
  }

  /** Like a crashed process: every connection cut, every session forgotten. */
  async stop(): Promise<void> {
    this.release();
    const http = this.http;
    this.http = undefined;
    await this.router.closeAll();
    if (http) await closeHttpServer(http);
  }

  /** Replaces the catalog and tells every open session (`notifications/tools/list_changed`), unless `notify` is false. */
  async setTools(tools: CatalogTool[], options: { notify?: boolean } = {}): Promise<void> {
    this.tools = [...tools];
    if (options.notify === false) return;
    await Promise.all([...this.sessions.values()].map((s) => s.server.sendToolListChanged().catch(() => undefined)));
  }

  /** Holds every tools/list answer until {@link release}. */
  holdLists(): void {
    this.held ??= new Promise<void>((resolve) => (this.releaseHeld = resolve));
  }

  release(): void {
    this.releaseHeld?.();
    this.held = null;
    this.releaseHeld = null;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJsonBody(req);
    this.requests.push({
      method: body?.method ?? req.method ?? '?',
      authorization: req.headers.authorization,
      headers: req.headers,
    });
    if (this.failCalls && body?.method === 'tools/call') {
      this.calls.push({ tool: String(body.params?.name), args: body.params?.arguments });
      res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
      return;
    }
    await this.router.route(req, res, body);
  }

  private createServer(): Server {
    const server = new Server(
      { name: 'catalog-test-server', version: '1.0.0' },
      { capabilities: { tools: { listChanged: true } } },
    );
    server.setRequestHandler(ListToolsRequestSchema, async (request) => {
      this.listCalls++;
      if (this.held) await this.held;
      const pageSize = this.options.pageSize;
      if (!pageSize) return { tools: this.tools };
      const start = Number(request.params?.cursor ?? 0);
      const end = start + pageSize;
      return { tools: this.tools.slice(start, end), nextCursor: end < this.tools.length ? String(end) : undefined };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      this.calls.push({ tool: request.params.name, args: request.params.arguments });
      this.callMetas.push(request.params._meta);
      if (!this.tools.some((t) => t.name === request.params.name)) {
        return { content: [{ type: 'text', text: `unknown tool ${request.params.name}` }], isError: true };
      }
      const text = `${this.label}:${request.params.name}:${JSON.stringify(request.params.arguments ?? {})}`;
      if (this.options.echoAuthorization) {
        // The request being handled is the last one received (the tests call one at a time).
        const authorization = this.requests.at(-1)?.authorization ?? null;
        return {
          content: [{ type: 'text', text: `${text} sent with Authorization: ${authorization}` }],
          structuredContent: { authorization },
        };
      }
      return { content: [{ type: 'text', text }] };
    });
    return server;
  }
}
