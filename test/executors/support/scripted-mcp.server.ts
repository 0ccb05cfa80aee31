import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { closeHttpServer, listenOnLoopback } from '@test/support/loopback-http';

/** One JSON-RPC message as the scripted server received it. */
export interface ReceivedMessage {
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
}

/**
 * What the server does with one POSTed message: `undefined` falls back to the default (initialize answered with a
 * session, notifications 202, requests answered by `answerTool`). A handler may write anything (or nothing: hang).
 */
export type ScriptedHandler = (message: ReceivedMessage, res: ServerResponse, req: IncomingMessage) => boolean | void;

/**
 * A hand-written streamable-HTTP MCP server on loopback whose every answer a test can script: to play a server that
 * misbehaves in ways the SDK's McpServer never would (hangs mid-handshake, keeps an answer stream open, ...).
 * GET (the standalone stream) answers 405 unless `onGet` says otherwise; DELETE 200.
 */
export class ScriptedMcpServer {
  readonly received: ReceivedMessage[] = [];
  /** Sockets the server has open right now. */
  openSockets = 0;
  /** The most sockets it had open at once. */
  peakSockets = 0;
  handler: ScriptedHandler = () => false;
  /** What the server does with the standalone GET stream (default: 405, no stream). */
  onGet: (res: ServerResponse) => void = (res) => res.writeHead(405).end();
  private server?: Server;
  private port = 0;
  private sessionSeq = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  count(method: string): number {
    return this.received.filter((m) => m.method === method).length;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => this.serve(req, res));
    this.server.on('connection', (socket) => {
      this.peakSockets = Math.max(this.peakSockets, ++this.openSockets);
      socket.on('close', () => this.openSockets--);
    });
    this.port = await listenOnLoopback(this.server);
    return this;
  }

  /** Stops accepting connections, as a server draining for a redeploy does: idle ones close, busy ones finish. */
  stopAccepting(): void {
    this.server?.close();
  }

  async stop(): Promise<void> {
    if (this.server) await closeHttpServer(this.server);
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    if (req.method === 'GET') {
      this.onGet(res);
      return;
    }
    if (req.method === 'DELETE') {
      res.writeHead(200).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReceivedMessage;
      this.received.push(message);
      if (this.handler(message, res, req) === true) return;
      this.answerByDefault(message, res);
    });
  }

  private answerByDefault(message: ReceivedMessage, res: ServerResponse): void {
    if (message.method === 'initialize') {
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': `s-${++this.sessionSeq}` });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: message.id,
          result: {
            protocolVersion: (message.params?.protocolVersion as string) ?? '2025-06-18',
            capabilities: { tools: {} },
            serverInfo: { name: 'scripted', version: '1.0.0' },
          },
        }),
      );
      return;
    }
    if (message.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: toolResult('ok') }));
  }
}

/** A CallToolResult with one text block. */
export function toolResult(text: string): { content: { type: 'text'; text: string }[] } {
  return { content: [{ type: 'text', text }] };
}
