import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { closeHttpServer, listenOnLoopback } from '@test/support/loopback-http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpSessionRouter, readJsonBody } from '@test/support/mcp-session-router';
import { EmptyResultSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** Options of {@link SdkMcpServer}. */
export interface SdkMcpServerOptions {
  /** Answer tools/list in pages of this size over `pagedToolCount` synthetic tools. */
  pageSize?: number;
  pagedToolCount?: number;
  /** Answer each POST with one JSON body instead of an SSE stream. */
  jsonResponse?: boolean;
}

/**
 * An MCP server of our own: the SDK's McpServer per session on node:http with StreamableHTTPServerTransport
 * (stateful sessions; an unknown session gets 404 as the spec says), answering on SSE streams or, with
 * `jsonResponse`, JSON bodies. Tools: `echo`, `slow` (waits `ms`, and while {@link holdSlowCalls} holds them until
 * released; records a cancellation when its `extra.signal` fires), `fail` (returns `isError`), `picture` (an image), `huge` (a text of `bytes` characters), `chatty` (sends a log notification and pings the
 * client on its answer stream before answering).
 * Counts what a test must see server-side, and can restart on the same port like a redeployed service.
 */
export class SdkMcpServer {
  toolCalls = 0;
  /** The `_meta` of every `echo` call, as the tool handler received it. */
  readonly echoMetas: unknown[] = [];
  /** The MCP session each `echo` call came on. */
  readonly sessionIdsOfCalls: Array<string | undefined> = [];
  readonly cancelled: Array<{ tool: string; reason: unknown }> = [];
  private readonly router: McpSessionRouter<McpServer>;
  /** What the client answered to the server's own requests (the `chatty` tool's ping). */
  readonly clientAnswers: unknown[] = [];
  private get sessions() {
    return this.router.sessions;
  }
  /** Sessions open on the server (a client's DELETE, or the server stopping, closes one). */
  get openSessionCount(): number {
    return this.sessions.size;
  }

  get initializeCount(): number {
    return this.router.initializeCount;
  }
  private http?: Server;
  private fixedPort = 0;
  /** Settles when the `slow` calls that came while {@link holdSlowCalls} held them may answer. */
  private slowCallsHeld?: { released: Promise<void>; release: () => void };

  constructor(private readonly options: SdkMcpServerOptions = {}) {
    this.router = new McpSessionRouter(() => this.createMcpServer(), { jsonResponse: options.jsonResponse });
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  get port(): number {
    return this.fixedPort;
  }

  async start(): Promise<this> {
    this.http = createServer((req, res) => void this.handle(req, res));
    this.fixedPort = await listenOnLoopback(this.http, this.fixedPort);
    return this;
  }

  /** Stops like a crashed or redeployed process: every connection cut, every session forgotten. */
  async stop(): Promise<void> {
    const http = this.http;
    this.http = undefined;
    await this.router.closeAll();
    if (http) await closeHttpServer(http);
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** `slow` calls from now on answer only once {@link releaseSlowCalls} is called (or they are cancelled). */
  holdSlowCalls(): void {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    this.slowCallsHeld = { released, release };
  }

  releaseSlowCalls(): void {
    this.slowCallsHeld?.release();
    this.slowCallsHeld = undefined;
  }

  /** Forgets every session while staying up (like a server that expired them): the next request gets 404. */
  forgetSessions(): void {
    this.sessions.clear();
  }

  /** Adds a tool on every live session (the SDK then sends notifications/tools/list_changed). */
  addTool(name: string): void {
    for (const { server: mcp } of this.sessions.values()) {
      mcp.registerTool(name, { description: `added ${name}` }, async () => ({
        content: [{ type: 'text', text: name }],
      }));
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    await this.router.route(req, res, await readJsonBody(req));
  }

  private createMcpServer(): McpServer {
    const mcp = new McpServer(
      { name: 'sdk-test-server', version: '1.0.0' },
      { capabilities: { tools: { listChanged: true }, logging: {} } },
    );
    mcp.registerTool(
      'echo',
      { description: 'echo', inputSchema: { message: z.string() } },
      async ({ message }, extra) => {
        this.toolCalls++;
        this.echoMetas.push(extra._meta);
        this.sessionIdsOfCalls.push(extra.sessionId);
        return { content: [{ type: 'text', text: `echo: ${message}` }] };
      },
    );
    mcp.registerTool('slow', { description: 'waits', inputSchema: { ms: z.number() } }, async ({ ms }, extra) => {
      this.toolCalls++;
      const held = this.slowCallsHeld?.released;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => void (held ?? Promise.resolve()).then(resolve), ms);
        extra.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          this.cancelled.push({ tool: 'slow', reason: extra.signal.reason });
          resolve();
        });
      });
      return { content: [{ type: 'text', text: `waited ${ms}` }] };
    });
    mcp.registerTool('fail', { description: 'fails' }, async () => {
      this.toolCalls++;
      return { content: [{ type: 'text', text: 'inventory service is down' }], isError: true };
    });
    mcp.registerTool('chatty', { description: 'logs, pings the client, then answers' }, async (extra) => {
      this.toolCalls++;
      await extra.sendNotification({
        method: 'notifications/message',
        params: { level: 'info', data: 'working on it' },
      });
      this.clientAnswers.push(await extra.sendRequest({ method: 'ping' }, EmptyResultSchema));
      return { content: [{ type: 'text', text: 'done after chatting' }] };
    });
    mcp.registerTool(
      'huge',
      { description: 'answers `bytes` characters', inputSchema: { bytes: z.number() } },
      async ({ bytes }) => ({
        content: [{ type: 'text', text: 'x'.repeat(bytes) }],
      }),
    );
    mcp.registerTool('picture', { description: 'an image' }, async () => ({
      content: [
        { type: 'text', text: 'a pixel' },
        { type: 'image', data: Buffer.alloc(3000).toString('base64'), mimeType: 'image/png' },
      ],
    }));
    if (this.options.pageSize) this.paginateToolsList(mcp, this.options.pageSize, this.options.pagedToolCount ?? 0);
    return mcp;
  }

  private paginateToolsList(mcp: McpServer, pageSize: number, count: number): void {
    const all = Array.from({ length: count }, (_v, i) => ({
      name: `paged_${i}`,
      inputSchema: { type: 'object' as const },
    }));
    mcp.server.removeRequestHandler('tools/list');
    mcp.server.setRequestHandler(ListToolsRequestSchema, async (request) => {
      const start = Number(request.params?.cursor ?? 0);
      const end = start + pageSize;
      return { tools: all.slice(start, end), nextCursor: end < all.length ? String(end) : undefined };
    });
  }
}
