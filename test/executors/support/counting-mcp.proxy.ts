import { createServer, request, Server } from 'node:http';
import { closeHttpServer, listenOnLoopback } from '@test/support/loopback-http';
import type { AddressInfo } from 'node:net';

/**
 * A transparent HTTP proxy in front of an MCP server that counts the JSON-RPC methods of POSTed messages the
 * server accepted (2xx), so a test can prove server-side how many sessions were initialized. Streams both
 * ways (SSE included).
 */
export class CountingMcpProxy {
  readonly methods = new Map<string, number>();
  private server?: Server;

  constructor(private readonly targetPort: number) {}

  count(method: string): number {
    return this.methods.get(method) ?? 0;
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const upstream = request(
          {
            host: '127.0.0.1',
            port: this.targetPort,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: `127.0.0.1:${this.targetPort}` },
          },
          (up) => {
            const ok = (up.statusCode ?? 500) < 300;
            if (ok && req.method === 'POST' && body.length > 0) this.record(body.toString('utf8'));
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
            // An upstream that dies mid-stream must cut the downstream too, as a direct connection would.
            up.on('close', () => {
              if (!res.writableEnded) res.destroy();
            });
          },
        );
        upstream.on('error', () => res.destroy());
        res.on('close', () => upstream.destroy());
        upstream.end(body);
      });
    });
    await listenOnLoopback(this.server);
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    await closeHttpServer(this.server);
  }

  private record(text: string): void {
    try {
      const parsed = JSON.parse(text) as { method?: string } | Array<{ method?: string }>;
      for (const msg of Array.isArray(parsed) ? parsed : [parsed]) {
        if (msg.method) this.methods.set(msg.method, this.count(msg.method) + 1);
      }
    } catch {
      // Not JSON-RPC: not counted.
    }
  }
}
