import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { closeHttpServer, listenOnLoopback } from '@test/support/loopback-http';
import type { AddressInfo } from 'node:net';

/** A request as the test server saw it. */
export interface RecordedRequest {
  n: number;
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
  /** Set when the client closed the connection before the response was finished. */
  abortedAt?: number;
}

export type RecordingHandler = (req: RecordedRequest, res: ServerResponse) => void | Promise<void>;

/**
 * A node:http server on 127.0.0.1 that records every request (counted server-side, with the body) and
 * whether the client went away before the response ended. `handler` answers; default 200 `{"ok":true}`.
 */
export class RecordingHttpServer {
  readonly requests: RecordedRequest[] = [];
  /** TCP connections accepted (keep-alive reuse keeps this low). */
  connections = 0;
  handler: RecordingHandler = (_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end('{"ok":true}');
  };
  private server?: Server;

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.onRequest(req, res));
    this.server.on('connection', () => this.connections++);
    // Idle connections stay open for the test file: with Node's 5 s default, a gateway on a loaded machine can send a
    // call on a connection the server is closing that instant (ECONNRESET, a FAILED risky call), which no test is about.
    this.server.keepAliveTimeout = 60_000;
    await listenOnLoopback(this.server);
    return this;
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  url(path = '/'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    await closeHttpServer(this.server);
    this.server = undefined;
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rec: RecordedRequest = {
      n: this.requests.length + 1,
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
      at: performance.now(),
    };
    this.requests.push(rec);
    res.on('close', () => {
      if (!res.writableFinished) rec.abortedAt = performance.now();
    });
    await this.handler(rec, res);
  }
}
