import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { toolFixture } from '@test/support/tool-fixture';
import type { ServerResponse } from 'node:http';
import { TOOL_MAX_RESPONSE_BYTES } from '@app/modules/executors/tool-executor';
import { waitFor } from '@test/support/wait-for';
import { ScriptedMcpServer, toolResult } from './support/scripted-mcp.server';
import { serverAndHarnessPerTest } from './support/mcp-harness';

const mcpTool = (url: string, overrides: Partial<ToolDescriptor> = {}): ToolDescriptor =>
  toolFixture({
    name: 'scripted_tool',
    serviceType: 'MCP_REMOTE',
    endpoint: url,
    remoteName: 'work',
    httpMethod: null,
    ...overrides,
  });

describe('McpClientPool against a server that misbehaves while the session opens', () => {
  const server = new ScriptedMcpServer();
  const suite = serverAndHarnessPerTest(server, () => (server.handler = () => false));

  it('does not stay stuck on a handshake the server never finished: a later call opens a new session', async () => {
    // The first handshake hangs: the server never answers `notifications/initialized`.
    let hangs = 1;
    server.handler = (message) => message.method === 'notifications/initialized' && hangs-- > 0;
    const first = await suite.gw.call(mcpTool(server.url, { timeoutMs: 1000 }));
    expect(first.error?.errorClass).toBe('TIMEOUT');

    // The server is healthy again: the next call (budget well past the connect bound) must get through.
    const second = await suite.gw.call(mcpTool(server.url, { timeoutMs: 15_000 }));
    expect(second.error).toBeUndefined();
    expect(second.output).toMatchObject({ content: 'ok' });
    expect(server.count('initialize')).toBe(2);
  }, 30_000);
});

describe('McpClientPool against a server that keeps the answer stream open after the answer', () => {
  const server = new ScriptedMcpServer();
  const suite = serverAndHarnessPerTest(server, () => (server.handler = () => false));

  it('returns the answer and lets go of the connection instead of holding one socket per call for ever', async () => {
    server.handler = (message, res) => {
      if (message.method !== 'tools/call') return false;
      // The answer as an SSE event, then the stream stays open (a comment now and then), never ended.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: toolResult('ok') })}\n\n`,
      );
      const beat = setInterval(() => res.write(': still here\n\n'), 100);
      res.on('close', () => clearInterval(beat));
      return true;
    };
    for (let i = 0; i < 6; i++) {
      const outcome = await suite.gw.call(mcpTool(server.url));
      expect(outcome.output).toMatchObject({ content: 'ok' });
    }
    // The session's own sockets (kept alive) stay; the six answer streams must not.
    await waitFor(() => server.openSockets <= 2, {
      timeoutMs: 8000,
      description: "the answer streams' sockets to close",
    });
  }, 30_000);
});

describe('McpClientPool against a server that floods the answer stream with requests of its own', () => {
  const server = new ScriptedMcpServer();
  const suite = serverAndHarnessPerTest(server, () => (server.handler = () => false));

  it('answers them a few at a time: thousands of pings do not open thousands of connections', async () => {
    const pings = 5000;
    server.handler = (message, res) => {
      if (message.method === 'tools/call') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        let events = '';
        for (let i = 0; i < pings; i++) events += `data: {"jsonrpc":"2.0","id":"p${i}","method":"ping"}\n\n`;
        res.write(events);
        res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: toolResult('ok') })}\n\n`);
        return true;
      }
      if (message.method === undefined && message.id !== undefined) {
        // The gateway's answer to a ping: accepted a little later, as a busy server would.
        setTimeout(() => res.writeHead(202).end(), 200);
        return true;
      }
      return false;
    };
    server.peakSockets = server.openSockets;
    const outcome = await suite.gw.call(mcpTool(server.url, { timeoutMs: 20_000 }));
    expect(outcome.output).toMatchObject({ content: 'ok' });
    // The answers to the pings go out after the call's answer: give them time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(server.peakSockets).toBeLessThanOrEqual(20);
  }, 60_000);
});

describe('McpClientPool against a server whose notification stream sends an event that never ends', () => {
  const server = new ScriptedMcpServer();
  const suite = serverAndHarnessPerTest(server, () => (server.onGet = (res) => res.writeHead(405).end()));

  it('cuts the stream once one event passes the answer size limit instead of buffering it without end', async () => {
    const total = 4 * TOOL_MAX_RESPONSE_BYTES;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const streams: { written: number; closed: boolean }[] = [];
    server.onGet = (res: ServerResponse) => {
      const stream = { written: 0, closed: false };
      streams.push(stream);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: ');
      res.on('close', () => (stream.closed = true));
      // One `data:` line that never ends, written as fast as the gateway reads it.
      const pump = (): void => {
        while (!stream.closed && stream.written < total) {
          stream.written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      pump();
    };
    const outcome = await suite.gw.call(mcpTool(server.url));
    expect(outcome.output).toMatchObject({ content: 'ok' });
    await waitFor(() => streams[0]?.closed || streams[0]?.written >= total, {
      timeoutMs: 30_000,
      description: 'the stream to be cut or fully written',
    });
    expect(streams[0].closed).toBe(true);
    expect(streams[0].written).toBeLessThan(2 * TOOL_MAX_RESPONSE_BYTES);
  }, 60_000);
});

describe('McpClientPool against a server that answers tools/call with a JSON-RPC error', () => {
  const server = new ScriptedMcpServer();
  const suite = serverAndHarnessPerTest(server, () => (server.handler = () => false));

  it.each([
    ['-32000 (implementation-defined server error)', -32000],
    ['-32603 (internal error)', -32603],
  ])('reports %s as what the server said, once, not as a lost connection', async (_label, code) => {
    server.handler = (message, res) => {
      if (message.method !== 'tools/call') return false;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code, message: 'Database unavailable' } }));
      return true;
    };
    const before = server.count('tools/call');
    const outcome = await suite.gw.call(mcpTool(server.url));
    expect(outcome.error?.errorClass).toBe('MCP_PROTOCOL_ERROR');
    expect(outcome.error?.message).toContain('Database unavailable');
    expect(outcome.attempts).toBe(1);
    expect(server.count('tools/call') - before).toBe(1);
  });
});

describe('McpClientPool against a server that drains for a redeploy', () => {
  const server = new ScriptedMcpServer();
  const suite = serverAndHarnessPerTest(server, () => (server.handler = () => false));

  it('lets a call in flight finish although another call could not connect: it is not cut off, nor its outcome lost', async () => {
    server.handler = (message, res) => {
      if (message.method !== 'tools/call' || message.params?.name !== 'slow') return false;
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: toolResult('slow done') }));
      }, 1500);
      return true;
    };
    await expect(suite.gw.call(mcpTool(server.url))).resolves.toMatchObject({ output: { content: 'ok' } });
    const sideEffect = mcpTool(server.url, { name: 'slow_write', remoteName: 'slow', sideEffect: 'SIDE_EFFECT' });
    const inFlight = suite.gw.call(sideEffect);
    await waitFor(() => server.received.some((m) => m.params?.name === 'slow'));
    // The server stops accepting connections but finishes what it has: another call finds no way in.
    server.stopAccepting();
    const refused = await suite.gw.call(mcpTool(server.url, { name: 'other', remoteName: 'other' }));
    expect(refused.error?.errorClass).toBe('CONNECTION_REFUSED');
    const outcome = await inFlight;
    expect(outcome.error).toBeUndefined();
    expect(outcome.output).toMatchObject({ content: 'slow done' });
  }, 30_000);
});

describe('McpClientPool against a server that never acknowledges a cancellation', () => {
  const server = new ScriptedMcpServer();
  const suite = serverAndHarnessPerTest(server, () => (server.handler = () => false));

  it('gives up on the notifications/cancelled POST too, instead of holding a socket per timed-out call for ever', async () => {
    // Neither the calls nor the cancellations are ever answered.
    server.handler = (message) => message.method === 'tools/call' || message.method === 'notifications/cancelled';
    for (let i = 0; i < 5; i++) {
      const outcome = await suite.gw.call(mcpTool(server.url, { timeoutMs: 300 }));
      expect(outcome.error?.errorClass).toBe('TIMEOUT');
    }
    await waitFor(() => server.count('notifications/cancelled') === 5);
    await waitFor(() => server.openSockets <= 2, {
      timeoutMs: 15_000,
      description: "the cancellations' sockets to close",
    });
  }, 40_000);
});
