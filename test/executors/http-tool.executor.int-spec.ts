import { deflateSync, gzipSync } from 'node:zlib';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { GatewayConfig } from '@app/config/gateway-config';
import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { OutboundGuard } from '@app/modules/executors/outbound/outbound-guard';
import { OutboundHttpAgent } from '@app/modules/executors/outbound/outbound-http.agent';
import { HttpToolExecutor } from '@app/modules/executors/http/http-tool.executor';
import { ToolCallPolicy } from '@app/modules/executors/call-policy/tool-call-policy';
import { waitFor } from '@test/support/wait-for';
import { findFreePort } from '@test/support/free-port';
import { executorTestConfig, headersResolverOf, invocationOf } from './support/executor-fixtures';
import { toolFixture } from '@test/support/tool-fixture';
import { RecordingHttpServer } from './support/recording-http.server';
import { selfSignedTls } from './support/self-signed-tls';

/** The HTTP executor under the call policy, as the call path runs it, against a real loopback server. */
class HttpHarness {
  readonly agent: OutboundHttpAgent;
  readonly executor: HttpToolExecutor;
  readonly policy: ToolCallPolicy;

  constructor(readonly config: GatewayConfig) {
    this.agent = new OutboundHttpAgent(new OutboundGuard(config), config);
    this.executor = new HttpToolExecutor(this.agent, headersResolverOf(config));
    this.policy = new ToolCallPolicy(config);
  }

  run(tool: ToolDescriptor, args: Record<string, unknown> = {}, toolCallId?: string) {
    return this.policy.run(tool, (attempt, signal) =>
      this.executor.execute(invocationOf(tool, args, attempt, signal, toolCallId)),
    );
  }

  close(): Promise<void> {
    return this.agent.onApplicationShutdown();
  }
}

describe('HttpToolExecutor under ToolCallPolicy (real loopback server)', () => {
  const server = new RecordingHttpServer();
  const gw = new HttpHarness(executorTestConfig({ TOOL_SECRETS: 'ORDERS_TOKEN=tok-123,OTHER=zzz' }));

  beforeAll(() => server.start());
  afterAll(async () => {
    await gw.close();
    await server.stop();
  });
  beforeEach(() => {
    server.requests.length = 0;
    server.handler = (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    };
  });

  it('sends placeholders in the path, the rest as query, the toolCallId as X-Tool-Call-Id and secret headers (GET)', async () => {
    const tool = toolFixture({
      endpoint: server.url('/orders/{orderId}?src=gw'),
      httpMethod: 'GET',
      headers: { Authorization: 'Bearer ${secret:ORDERS_TOKEN}' },
    });
    const outcome = await gw.run(tool, { orderId: 'A 1+2', verbose: true, ids: [1, 2] }, 'tc-get-1');
    expect(outcome.output).toEqual({ content: '{"ok":true}', structured: { ok: true } });
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect(req.method).toBe('GET');
    expect(req.url).toBe('/orders/A%201%2B2?src=gw&verbose=true&ids=1&ids=2');
    expect(req.headers['x-tool-call-id']).toBe('tc-get-1');
    expect(req.headers.authorization).toBe('Bearer tok-123');
    expect(req.body).toBe('');
  });

  it('sends the remaining arguments as a JSON body for POST', async () => {
    server.handler = (_req, res) => {
      res.setHeader('content-type', 'text/plain');
      res.end('created order 7');
    };
    const tool = toolFixture({
      endpoint: server.url('/orders/{id}/lines'),
      httpMethod: 'POST',
      sideEffect: 'SIDE_EFFECT',
    });
    const outcome = await gw.run(tool, { id: 7, sku: 'X-1', qty: 2 }, 'tc-post-1');
    expect(outcome.output).toEqual({ content: 'created order 7' });
    const [req] = server.requests;
    expect(req.url).toBe('/orders/7/lines');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['x-tool-call-id']).toBe('tc-post-1');
    expect(JSON.parse(req.body)).toEqual({ sku: 'X-1', qty: 2 });
  });

  it('fails on a missing platform secret without naming it (tenants read results) and without sending anything', async () => {
    const tool = toolFixture({ endpoint: server.url('/x'), headers: { 'X-Api-Key': '${secret:NOT_CONFIGURED}' } });
    const outcome = await gw.run(tool);
    expect(outcome.attempts).toBe(1);
    expect(outcome.error).toMatchObject({ errorClass: 'SECRET_MISSING', transient: false, reachedRemote: false });
    expect(outcome.error?.message).toContain('TOOL_SECRETS');
    expect(outcome.error?.message).not.toContain('NOT_CONFIGURED');
    expect(outcome.error?.message).not.toMatch(/tok-123|zzz/);
    expect(server.requests).toHaveLength(0);
  });

  it('never hands back a secret the remote echoes (error body, redirect Location, result): it goes only to the remote', async () => {
    server.handler = (req, res) => {
      const token = String(req.headers['x-api-key']);
      if (req.url === '/denied') {
        res.statusCode = 401;
        res.end(`key ${token} is not valid`);
      } else if (req.url === '/moved') {
        res.statusCode = 302;
        res.setHeader('location', `https://login.example.com/?key=${token}`);
        res.end();
      } else {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ echoed: { 'x-api-key': token }, ok: true }));
      }
    };
    const headers = { 'X-Api-Key': '${secret:ORDERS_TOKEN}' };
    const denied = await gw.run(toolFixture({ endpoint: server.url('/denied'), headers }));
    expect(denied.error?.message).toMatch(/answered HTTP 401: key \*\*\* is not valid$/);
    const moved = await gw.run(toolFixture({ endpoint: server.url('/moved'), headers }));
    expect(moved.error?.message).toContain('https://login.example.com/?key=***');
    const echoed = await gw.run(toolFixture({ endpoint: server.url('/echo'), headers }));
    expect(echoed.output).toEqual({
      content: '{"echoed":{"x-api-key":"***"},"ok":true}',
      structured: { echoed: { 'x-api-key': '***' }, ok: true },
    });
    expect(server.requests.map((r) => r.headers['x-api-key'])).toEqual(['tok-123', 'tok-123', 'tok-123']);
  });

  // An AWS-style secret holds '/' and '+': PHP's json_encode sends '/' as '\/', .NET's System.Text.Json '+' as
  // '\u002B', Go '&' as '\u0026', and .NET's UrlEncode writes '%2f' in lower case. The body is handed to the model as
  // the remote wrote it, so each of these echoes handed a platform secret to the tenant whose model called the tool.
  it('hides an echoed secret however the remote escaped it (JSON \\/ and \\uXXXX, percent-encoding in any case)', async () => {
    const secret = 'wJalr/K7MDENG+bPxR&fi';
    const slashed = new HttpHarness(executorTestConfig({ TOOL_SECRETS: `AWS_SECRET=${secret}` }));
    try {
      const escapes: Record<string, string> = {
        php: secret.replace(/\//g, '\\/'),
        dotnet: secret.replace(/\+/g, '\\u002B').replace(/&/g, '\\u0026'),
        go: secret.replace(/&/g, '\\u0026').replace(/\//g, '\\/'),
        lowerPercent: encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
      };
      server.handler = (req, res) => {
        expect(req.headers['x-secret']).toBe(secret);
        const style = String(req.url).slice(1);
        if (style === 'denied') {
          res.statusCode = 401;
          return void res.end(`{"error":"bad key ${escapes.php}"}`);
        }
        res.setHeader('content-type', 'application/json');
        res.end(`{"echoed":"${escapes[style]}","ok":true}`);
      };
      const headers = { 'X-Secret': '${secret:AWS_SECRET}' };
      for (const style of Object.keys(escapes)) {
        const echoed = await slashed.run(toolFixture({ endpoint: server.url(`/${style}`), headers }));
        expect({ style, content: echoed.output?.content }).toEqual({ style, content: '{"echoed":"***","ok":true}' });
        expect(echoed.output?.structured).toEqual({ echoed: '***', ok: true });
      }
      const denied = await slashed.run(toolFixture({ endpoint: server.url('/denied'), headers }));
      expect(denied.error?.message).toMatch(/answered HTTP 401: \{"error":"bad key \*\*\*"\}$/);
    } finally {
      await slashed.close();
    }
  });

  it('hides an echoed secret before the error excerpt is cut, so no part of it shows at the cut', async () => {
    server.handler = (req, res) => {
      res.statusCode = 401;
      res.end(`${'x'.repeat(294)} ${String(req.headers['x-api-key'])} is not valid`);
    };
    const outcome = await gw.run(
      toolFixture({ endpoint: server.url('/long'), headers: { 'X-Api-Key': '${secret:ORDERS_TOKEN}' } }),
    );
    expect(outcome.error?.message).toMatch(/x \*\*\* i…$/);
    expect(outcome.error?.message).not.toContain('tok-');
  });

  it('retries a READ_ONLY tool after 503: two requests reach the server, the second answer wins', async () => {
    server.handler = (req, res) => {
      res.statusCode = req.n === 1 ? 503 : 200;
      res.end(req.n === 1 ? 'busy' : 'fine');
    };
    const outcome = await gw.run(toolFixture({ endpoint: server.url('/r'), sideEffect: 'READ_ONLY' }), {}, 'tc-ro');
    expect(outcome).toMatchObject({ output: { content: 'fine' }, attempts: 2 });
    expect(server.requests).toHaveLength(2);
    expect(server.requests.map((r) => r.headers['x-tool-call-id'])).toEqual(['tc-ro', 'tc-ro']);
    expect(server.requests[1].headers['idempotency-key']).toBe(server.requests[0].headers['idempotency-key']);
  });

  it('reports a 503 whose body never ends as a 503 and retries it, instead of waiting out the whole budget', async () => {
    server.handler = (req, res) => {
      if (req.n > 1) return void res.end('fine');
      res.statusCode = 503;
      res.write('busy, '); // ...and the body never ends
    };
    const tool = toolFixture({ endpoint: server.url('/stalls'), sideEffect: 'READ_ONLY', timeoutMs: 8000 });
    const outcome = await gw.run(tool);
    expect(outcome).toMatchObject({ output: { content: 'fine' }, attempts: 2, timedOut: false });
    expect(outcome.durationMs).toBeLessThan(4000);
  });

  it('does not retry a SIDE_EFFECT tool after 503: one request, a transient error that reached the remote', async () => {
    server.handler = (_req, res) => {
      res.statusCode = 503;
      res.end('{"error":"overloaded"}');
    };
    const outcome = await gw.run(
      toolFixture({ endpoint: server.url('/w'), httpMethod: 'POST', sideEffect: 'SIDE_EFFECT' }),
    );
    expect(server.requests).toHaveLength(1);
    expect(outcome.attempts).toBe(1);
    expect(outcome.error).toMatchObject({
      errorClass: 'HTTP_RETRYABLE',
      transient: true,
      reachedRemote: true,
      options: { httpStatus: 503 },
    });
    expect(outcome.error?.message).toContain('overloaded');
  });

  it('does not retry a 4xx, and reports the status with an excerpt of the body', async () => {
    server.handler = (_req, res) => {
      res.statusCode = 422;
      res.end(`{"error":"qty must be positive"}${' '.repeat(10)}${'x'.repeat(5000)}`);
    };
    const outcome = await gw.run(toolFixture({ endpoint: server.url('/v'), sideEffect: 'READ_ONLY' }));
    expect(server.requests).toHaveLength(1);
    expect(outcome.error).toMatchObject({ errorClass: 'HTTP_CLIENT_ERROR', transient: false, reachedRemote: true });
    expect(outcome.error?.message).toContain('HTTP 422');
    expect(outcome.error?.message).toContain('qty must be positive');
    expect(outcome.error!.message.length).toBeLessThan(500);
  });

  it('retries a SIDE_EFFECT tool whose port refuses connections, up to TOOL_MAX_ATTEMPTS', async () => {
    const port = await findFreePort();
    const outcome = await gw.run(
      toolFixture({ endpoint: `http://127.0.0.1:${port}/w`, httpMethod: 'POST', sideEffect: 'SIDE_EFFECT' }),
    );
    expect(outcome.attempts).toBe(3);
    expect(outcome.error).toMatchObject({ errorClass: 'CONNECTION_REFUSED', transient: true, reachedRemote: false });
  });

  it('aborts a slow request at the tool timeout: the server sees the connection close and the call times out', async () => {
    let release: (() => void) | undefined;
    server.handler = (_req, res) =>
      new Promise<void>((resolve) => {
        release = resolve;
        res.on('close', resolve);
      });
    const started = performance.now();
    const outcome = await gw.run(
      toolFixture({ endpoint: server.url('/slow'), timeoutMs: 300, sideEffect: 'SIDE_EFFECT', httpMethod: 'POST' }),
    );
    const elapsed = performance.now() - started;
    expect(outcome).toMatchObject({ timedOut: true, attempts: 1 });
    expect(outcome.error).toMatchObject({ errorClass: 'TIMEOUT', reachedRemote: true });
    // Lower bounds only, on one clock (server and gateway share this process): the timer cannot fire early, while
    // the server's receipt can be late on a loaded machine, so the span is measured from the call's start.
    expect(elapsed).toBeGreaterThanOrEqual(290);
    await waitFor(() => server.requests[0]?.abortedAt !== undefined, { description: 'the server to see the abort' });
    const [req] = server.requests;
    expect(req.abortedAt! - started).toBeGreaterThanOrEqual(290);
    expect(server.requests).toHaveLength(1);
    release?.();
  });

  it('honours Retry-After (seconds) before the next attempt', async () => {
    server.handler = (req, res) => {
      if (req.n === 1) {
        res.statusCode = 429;
        res.setHeader('retry-after', '1');
        res.end('slow down');
      } else res.end('done');
    };
    const outcome = await gw.run(toolFixture({ endpoint: server.url('/limited') }));
    expect(outcome).toMatchObject({ output: { content: 'done' }, attempts: 2 });
    expect(server.requests[1].at - server.requests[0].at).toBeGreaterThanOrEqual(990);
  });

  it('honours Retry-After given as an HTTP date', async () => {
    server.handler = (req, res) => {
      if (req.n === 1) {
        res.statusCode = 503;
        res.setHeader('retry-after', new Date(Date.now() + 2000).toUTCString());
        res.end();
      } else res.end('back');
    };
    const outcome = await gw.run(toolFixture({ endpoint: server.url('/date') }));
    expect(outcome.output?.content).toBe('back');
    // An HTTP date has whole seconds: the wait is between 1 and 2 s.
    expect(server.requests[1].at - server.requests[0].at).toBeGreaterThanOrEqual(990);
  });

  it('ends the call when Retry-After is longer than TOOL_RETRY_MAX_AFTER_MS', async () => {
    server.handler = (_req, res) => {
      res.statusCode = 503;
      res.setHeader('retry-after', '120');
      res.end();
    };
    const outcome = await gw.run(toolFixture({ endpoint: server.url('/later') }));
    expect(server.requests).toHaveLength(1);
    expect(outcome.error).toMatchObject({ errorClass: 'RETRY_AFTER_TOO_LONG', transient: false });
  });

  it('refuses a response larger than 10 MB', async () => {
    server.handler = (_req, res) => {
      const chunk = Buffer.alloc(1024 * 1024, 97);
      let sent = 0;
      const pump = (): void => {
        while (sent < 11 && !res.destroyed) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    };
    const outcome = await gw.run(toolFixture({ endpoint: server.url('/huge') }));
    expect(outcome.error).toMatchObject({ errorClass: 'RESPONSE_TOO_LARGE', transient: false, reachedRemote: true });
  });

  it('decodes a gzip or deflate answer (a tool asked for it with Accept-Encoding) before it reads the text', async () => {
    server.handler = (req, res) => {
      res.setHeader('content-type', 'application/json');
      res.setHeader('content-encoding', req.url === '/gz' ? 'gzip' : 'deflate');
      res.end((req.url === '/gz' ? gzipSync : deflateSync)('{"city":"Zürich"}'));
    };
    const headers = { 'Accept-Encoding': 'gzip, deflate' };
    for (const path of ['/gz', '/deflate']) {
      expect((await gw.run(toolFixture({ endpoint: server.url(path), headers }))).output).toEqual({
        content: '{"city":"Zürich"}',
        structured: { city: 'Zürich' },
      });
    }
  });

  it('quotes a gzip error answer decoded, and an empty gzip answer reads as empty', async () => {
    server.handler = (req, res) => {
      res.setHeader('content-encoding', 'gzip');
      res.statusCode = req.url === '/bad' ? 400 : 200;
      res.end(req.url === '/bad' ? gzipSync('orderId is required') : undefined);
    };
    const headers = { 'Accept-Encoding': 'gzip' };
    const failed = await gw.run(toolFixture({ endpoint: server.url('/bad'), headers }));
    expect(failed.error?.message).toMatch(/answered HTTP 400: orderId is required$/);
    const empty = await gw.run(toolFixture({ endpoint: server.url('/empty'), headers }));
    expect(empty.output).toEqual({ content: '(empty response, HTTP 200)' });
  });

  it('refuses a compressed answer that inflates past 10 MB (a decompression bomb) without inflating it all', async () => {
    const zeros = Buffer.alloc(64 * 1024 * 1024, 97);
    const bombs: Record<string, Buffer> = { gzip: gzipSync(zeros), deflate: deflateSync(zeros) };
    server.handler = (req, res) => {
      const coding = req.url.slice(1);
      res.setHeader('content-encoding', coding);
      res.end(bombs[coding]);
    };
    for (const coding of Object.keys(bombs)) {
      const tool = toolFixture({ endpoint: server.url(`/${coding}`), headers: { 'Accept-Encoding': coding } });
      const outcome = await gw.run(tool);
      expect(bombs[coding].length).toBeLessThan(1024 * 1024);
      expect(outcome.error).toMatchObject({ errorClass: 'RESPONSE_TOO_LARGE', transient: false, reachedRemote: true });
    }
  });

  it('fails with a clear error on a Content-Encoding it cannot decode, instead of handing the model raw bytes', async () => {
    server.handler = (_req, res) => {
      res.setHeader('content-encoding', 'zstd');
      res.end(Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x01]));
    };
    const outcome = await gw.run(
      toolFixture({ endpoint: server.url('/zstd'), headers: { 'Accept-Encoding': 'zstd' } }),
    );
    expect(outcome.error).toMatchObject({ errorClass: 'RESPONSE_UNREADABLE', transient: false, reachedRemote: true });
    expect(outcome.error?.message).toMatch(/Content-Encoding zstd/);
    expect(outcome.error?.message).toMatch(/Accept-Encoding/);
  });

  it('returns an empty 204 as a readable line', async () => {
    server.handler = (_req, res) => {
      res.statusCode = 204;
      res.end();
    };
    expect((await gw.run(toolFixture({ endpoint: server.url('/none'), httpMethod: 'DELETE' }))).output).toEqual({
      content: '(empty response, HTTP 204)',
    });
  });

  it('reuses keep-alive connections across calls (one shared Agent)', async () => {
    const before = server.connections;
    for (let i = 0; i < 5; i++) await gw.run(toolFixture({ endpoint: server.url('/ka') }));
    expect(server.requests).toHaveLength(5);
    expect(server.connections - before).toBeLessThanOrEqual(1);
  });
});

describe('HttpToolExecutor outbound guard (real sockets)', () => {
  const server = new RecordingHttpServer();
  beforeAll(() => server.start());
  afterAll(() => server.stop());
  beforeEach(() => (server.requests.length = 0));

  it('blocks 127.0.0.1 when OUTBOUND_ALLOW_HOSTS is empty, before anything is sent', async () => {
    const gw = new HttpHarness(executorTestConfig({ OUTBOUND_ALLOW_HOSTS: '' }));
    try {
      const outcome = await gw.run(toolFixture({ endpoint: server.url('/x'), sideEffect: 'READ_ONLY' }));
      expect(outcome.attempts).toBe(1);
      expect(outcome.error).toMatchObject({ errorClass: 'OUTBOUND_BLOCKED', transient: false, reachedRemote: false });
      expect(server.requests).toHaveLength(0);
    } finally {
      await gw.close();
    }
  });

  it('blocks a host name that resolves to loopback at connect time (localhost), before anything is sent', async () => {
    const gw = new HttpHarness(executorTestConfig({ OUTBOUND_ALLOW_HOSTS: '' }));
    try {
      const outcome = await gw.run(toolFixture({ endpoint: `http://localhost:${server.port}/x` }));
      expect(outcome.error).toMatchObject({ errorClass: 'OUTBOUND_BLOCKED', reachedRemote: false });
      expect(outcome.error?.message).toMatch(/localhost resolves to (127\.0\.0\.1|::1)/);
      expect(server.requests).toHaveLength(0);
    } finally {
      await gw.close();
    }
  });

  it('lets an allow-listed host name through and connects to the address it vetted', async () => {
    const gw = new HttpHarness(executorTestConfig({ OUTBOUND_ALLOW_HOSTS: 'localhost' }));
    try {
      const outcome = await gw.run(toolFixture({ endpoint: `http://localhost:${server.port}/named` }));
      // localhost may resolve to ::1 first; the server listens on 127.0.0.1 only, so happy-eyeballs falls back.
      expect(outcome.output?.content).toBe('{"ok":true}');
      expect(server.requests).toHaveLength(1);
    } finally {
      await gw.close();
    }
  });

  it("refuses a tool header that picks the virtual host (Host), so a tenant's call cannot reach a platform-only name", async () => {
    const gw = new HttpHarness(executorTestConfig({ OUTBOUND_PLATFORM_ONLY_HOSTS: 'models.platform.internal' }));
    try {
      const spoofing: Record<string, string>[] = [
        { Host: 'models.platform.internal' },
        { 'Transfer-Encoding': 'chunked' },
      ];
      for (const headers of spoofing) {
        const tool = toolFixture({ tenantId: 't1', endpoint: server.url('/v1/chat'), headers });
        const outcome = await gw.run(tool);
        expect(outcome.error).toMatchObject({ errorClass: 'INVALID_REQUEST', transient: false, reachedRemote: false });
        expect(outcome.error?.message).toContain(`"${Object.keys(headers)[0]}"`);
      }
      expect(server.requests).toHaveLength(0);
    } finally {
      await gw.close();
    }
  });

  it('fails an untrusted certificate as TLS_FAILED: not sent, not retried, saying what to fix', async () => {
    let received = 0;
    const tls = createHttpsServer(selfSignedTls(), (_req, res) => {
      received++;
      res.end('{}');
    });
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    const gw = new HttpHarness(executorTestConfig());
    try {
      const { port } = tls.address() as AddressInfo;
      const tool = toolFixture({
        endpoint: `https://127.0.0.1:${port}/orders`,
        httpMethod: 'POST',
        sideEffect: 'SIDE_EFFECT',
      });
      const outcome = await gw.run(tool);
      expect(outcome.attempts).toBe(1);
      expect(outcome.error).toMatchObject({ errorClass: 'TLS_FAILED', transient: false, reachedRemote: false });
      expect(outcome.error?.message).toMatch(/DEPTH_ZERO_SELF_SIGNED_CERT/);
      expect(outcome.error?.message).toMatch(/the request was not sent/);
      expect(outcome.error?.message).toMatch(/certificate/);
      expect(received).toBe(0);
    } finally {
      await gw.close();
      tls.closeAllConnections();
      await new Promise((resolve) => tls.close(resolve));
    }
  });

  it('blocks a non-http scheme', async () => {
    const gw = new HttpHarness(executorTestConfig());
    try {
      const outcome = await gw.run(toolFixture({ endpoint: 'file:///etc/passwd' }));
      expect(outcome.error).toMatchObject({ errorClass: 'OUTBOUND_BLOCKED' });
    } finally {
      await gw.close();
    }
  });
});
