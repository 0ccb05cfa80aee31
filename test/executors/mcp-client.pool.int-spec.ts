import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { ToolCallError } from '@app/modules/executors/tool-executor';
import { waitFor } from '@test/support/wait-for';
import { executorTestConfig } from './support/executor-fixtures';
import { toolFixture } from '@test/support/tool-fixture';
import { SdkMcpServer } from './support/sdk-mcp.server';
import { McpHarness, serverAndHarnessPerTest } from './support/mcp-harness';
import { CatalogMcpServer, catalogTool } from '@test/mcp-services/support/catalog-mcp.server';
import { TOOL_MAX_RESPONSE_BYTES } from '@app/modules/executors/tool-executor';
import { createServer, type Server } from 'node:http';
import { closeHttpServer, listenOnLoopback } from '@test/support/loopback-http';

const mcpTool = (url: string, remoteName: string, overrides: Partial<ToolDescriptor> = {}): ToolDescriptor =>
  toolFixture({
    name: `sdk_${remoteName}`,
    serviceType: 'MCP_REMOTE',
    endpoint: url,
    remoteName,
    httpMethod: null,
    ...overrides,
  });

describe('McpClientPool + McpRemoteToolExecutor against an SDK McpServer (streamable HTTP)', () => {
  const server = new SdkMcpServer();
  const suite = serverAndHarnessPerTest(server);

  it('cancels a slow tool at the tool timeout: the handler sees its signal fire and the call times out', async () => {
    // Open the session first, so the 300 ms budget is spent on the tool call, not on connecting.
    await suite.gw.call(mcpTool(server.url, 'echo'), { message: 'warm up' });
    const cancelledBefore = server.cancelled.length;
    const started = performance.now();
    const outcome = await suite.gw.call(mcpTool(server.url, 'slow', { timeoutMs: 300, sideEffect: 'SIDE_EFFECT' }), {
      ms: 30_000,
    });
    expect(outcome).toMatchObject({ timedOut: true, attempts: 1 });
    expect(outcome.error).toMatchObject({ errorClass: 'TIMEOUT', reachedRemote: true });
    // About 300 ms; a call the timeout did not end lasts the tool's 30 s. The room between is for a loaded machine.
    expect(performance.now() - started).toBeLessThan(10_000);
    await waitFor(() => server.cancelled.length === cancelledBefore + 1, {
      description: 'notifications/cancelled to reach the slow tool',
    });
    expect(server.cancelled.at(-1)?.tool).toBe('slow');
  });

  it('returns an isError result as a tool error output and does not retry it', async () => {
    const before = server.toolCalls;
    const outcome = await suite.gw.call(mcpTool(server.url, 'fail'));
    expect(outcome).toMatchObject({ output: { content: 'inventory service is down', isError: true }, attempts: 1 });
    expect(server.toolCalls - before).toBe(1);
  });

  it('summarizes image content', async () => {
    const outcome = await suite.gw.call(mcpTool(server.url, 'picture'));
    expect(outcome.output?.content).toBe('a pixel\n[image: image/png, 2.9 KB]');
  });

  it("keeps the session's own protocol headers when a tool's headers name them too (any case)", async () => {
    const forging = mcpTool(server.url, 'echo', {
      name: 'sdk_forging',
      headers: { 'Mcp-Session-Id': 'forged-session', 'MCP-PROTOCOL-VERSION': '1999-01-01', 'X-Team': 'kept' },
    });
    const outcome = await suite.gw.call(forging, { message: 'own session' });
    expect(outcome.error).toBeUndefined();
    expect(outcome.output).toMatchObject({ content: 'echo: own session' });
    expect(server.sessionIdsOfCalls.at(-1)).not.toBe('forged-session');
  });

  it('shares one connect among concurrent first calls', async () => {
    const before = server.initializeCount;
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_v, i) => suite.gw.call(mcpTool(server.url, 'echo'), { message: `m${i}` })),
    );
    expect(outcomes.map((o) => o.output?.content)).toEqual(Array.from({ length: 10 }, (_v, i) => `echo: m${i}`));
    expect(server.initializeCount - before).toBe(1);
    expect(suite.gw.pool.stats().totalConnects).toBe(1);
  });

  it('re-sends a request refused with 404 (unknown session) once, on a fresh session', async () => {
    const tool = mcpTool(server.url, 'echo', { sideEffect: 'HIGH_RISK' });
    await suite.gw.call(tool, { message: 'first' });
    const before = { init: server.initializeCount, calls: server.toolCalls };
    server.forgetSessions();
    const outcome = await suite.gw.call(tool, { message: 'second' });
    expect(outcome).toMatchObject({ output: { content: 'echo: second' }, attempts: 1 });
    expect(server.initializeCount - before.init).toBe(1);
    expect(server.toolCalls - before.calls).toBe(1);
  });

  it('reconnects after the server restarts on the same port, within the same attempt', async () => {
    const tool = mcpTool(server.url, 'echo', { sideEffect: 'SIDE_EFFECT' });
    await expect(suite.gw.call(tool, { message: 'before' })).resolves.toMatchObject({
      output: { content: 'echo: before' },
    });
    const before = server.initializeCount;
    await server.stop();
    await suite.gw.seesServerGone(server.url);
    await server.start();
    const outcome = await suite.gw.call(tool, { message: 'after' });
    expect(outcome).toMatchObject({ output: { content: 'echo: after' }, attempts: 1 });
    expect(server.initializeCount - before).toBe(1);
    expect(suite.gw.pool.stats().servers[0]).toMatchObject({ connects: 2, connected: true });
  });

  it('reports a stopped server as refused (not reached) and retries it even for side-effecting tools', async () => {
    const tool = mcpTool(server.url, 'echo', { sideEffect: 'SIDE_EFFECT' });
    await suite.gw.call(tool, { message: 'warm' });
    await server.stop();
    await suite.gw.seesServerGone(server.url);
    try {
      const outcome = await suite.gw.call(tool, { message: 'lost' });
      expect(outcome.attempts).toBe(3);
      expect(outcome.error).toMatchObject({ errorClass: 'CONNECTION_REFUSED', transient: true, reachedRemote: false });
    } finally {
      await server.start();
    }
    await expect(suite.gw.call(tool, { message: 'back' })).resolves.toMatchObject({
      output: { content: 'echo: back' },
    });
  });

  it('fails a call in flight when the server dies, fast and as an unknown outcome, instead of hanging to the budget', async () => {
    const tool = mcpTool(server.url, 'slow', { sideEffect: 'SIDE_EFFECT', timeoutMs: 20_000 });
    const calls = server.toolCalls;
    const pending = suite.gw.call(tool, { ms: 15_000 });
    await waitFor(() => server.toolCalls > calls, { description: 'the slow call to reach the server' });
    const stoppedAt = performance.now();
    await server.stop();
    try {
      const outcome = await pending;
      expect(performance.now() - stoppedAt).toBeLessThan(5000);
      expect(outcome).toMatchObject({ attempts: 1, timedOut: false });
      expect(outcome.error).toMatchObject({ errorClass: 'CONNECTION_LOST', transient: true, reachedRemote: true });
    } finally {
      await server.start();
    }
  });

  it('reports a server that was never up as refused before anything was sent', async () => {
    const down = new SdkMcpServer();
    await down.start();
    const url = down.url;
    await down.stop();
    const outcome = await suite.gw.call(mcpTool(url, 'echo', { sideEffect: 'HIGH_RISK' }), { message: 'x' });
    expect(outcome.attempts).toBe(3);
    expect(outcome.error).toMatchObject({ errorClass: 'CONNECTION_REFUSED', reachedRemote: false });
  });

  it('tells listeners about notifications/tools/list_changed', async () => {
    let notified = 0;
    const off = suite.gw.pool.onToolsListChanged(server.url, () => notified++);
    await suite.gw.call(mcpTool(server.url, 'echo'), { message: 'open the session' });
    let n = 0;
    // The notification rides the session's GET stream, which opens just after initialize: add tools until one is heard.
    await waitFor(
      () => {
        if (notified === 0) server.addTool(`added_${n++}`);
        return notified > 0;
      },
      { intervalMs: 50, description: 'a tools/list_changed notification' },
    );
    off();
    const heard = notified;
    server.addTool('after_unsubscribe');
    await suite.gw.call(mcpTool(server.url, 'echo'), { message: 'flush' });
    expect(notified).toBe(heard);
  });

  it('checks the outbound guard before opening a session', async () => {
    const blocked = new McpHarness(executorTestConfig({ OUTBOUND_ALLOW_HOSTS: '' }));
    const before = server.initializeCount;
    try {
      const outcome = await blocked.call(mcpTool(server.url, 'echo'), { message: 'x' });
      expect(outcome.attempts).toBe(1);
      expect(outcome.error).toMatchObject({ errorClass: 'OUTBOUND_BLOCKED', transient: false, reachedRemote: false });
      expect(server.initializeCount).toBe(before);
    } finally {
      await blocked.close();
    }
  });

  it("reports the SDK's own request timeout as transient but possibly delivered, and cancels on the server", async () => {
    await suite.gw.pool.callTool({ url: server.url }, 'echo', { message: 'warm up' });
    const cancelledBefore = server.cancelled.length;
    const err = await suite.gw.pool
      .callTool({ url: server.url }, 'slow', { ms: 10_000 }, { timeoutMs: 200 })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ errorClass: 'MCP_TIMEOUT', transient: true, reachedRemote: true });
    await waitFor(() => server.cancelled.length === cancelledBefore + 1, {
      description: 'the cancellation to reach the server',
    });
  });

  it('refuses an endpoint that is not a URL without retrying', async () => {
    const outcome = await suite.gw.call(mcpTool('not a url', 'echo'), { message: 'x' });
    expect(outcome).toMatchObject({
      attempts: 1,
      error: { errorClass: 'INVALID_REQUEST', transient: false, reachedRemote: false },
    });
  });

  it('cancels through a caller signal passed straight to the pool', async () => {
    const caller = new AbortController();
    const pending = suite.gw.pool.callTool({ url: server.url }, 'slow', { ms: 10_000 }, { signal: caller.signal });
    await waitFor(() => server.toolCalls > 0 && suite.gw.pool.stats().servers[0]?.connected);
    const cancelledBefore = server.cancelled.length;
    setTimeout(() => caller.abort(new Error('stop')), 100);
    const err = await pending.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolCallError);
    await waitFor(() => server.cancelled.length === cancelledBefore + 1, {
      description: 'the cancellation to reach the server',
    });
  });
});

describe('McpClientPool: what a server sends on the answer stream besides the answer', () => {
  const server = new SdkMcpServer();
  const suite = serverAndHarnessPerTest(server);

  it('gives up on an answer larger than the limit, without retrying, and the session still works', async () => {
    // A generous budget: reading 10 MB must end on the size limit, not on the clock, even on a loaded machine.
    const outcome = await suite.gw.call(mcpTool(server.url, 'huge', { timeoutMs: 120_000 }), {
      bytes: TOOL_MAX_RESPONSE_BYTES + 1024,
    });
    expect(outcome).toMatchObject({ attempts: 1, error: { errorClass: 'MCP_PROTOCOL_ERROR', transient: false } });
    expect(outcome.error?.message).toContain(`more than ${TOOL_MAX_RESPONSE_BYTES} bytes`);
    await expect(suite.gw.call(mcpTool(server.url, 'echo'), { message: 'after' })).resolves.toMatchObject({
      output: { content: 'echo: after' },
    });
  }, 90_000);

  it("answers the server's ping, skips its log notification and returns the answer", async () => {
    const outcome = await suite.gw.call(mcpTool(server.url, 'chatty'));
    expect(outcome).toMatchObject({ output: { content: 'done after chatting' }, attempts: 1 });
    expect(server.clientAnswers).toEqual([{}]);
  });
});

describe('McpClientPool + McpRemoteToolExecutor against a server that answers with JSON bodies', () => {
  const server = new SdkMcpServer({ jsonResponse: true });
  const suite = serverAndHarnessPerTest(server);

  it('calls a tool, and keeps one session for many calls', async () => {
    const before = server.initializeCount;
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, (_v, i) => suite.gw.call(mcpTool(server.url, 'echo'), { message: `j${i}` })),
    );
    expect(outcomes.map((o) => o.output?.content)).toEqual(Array.from({ length: 5 }, (_v, i) => `echo: j${i}`));
    expect(server.initializeCount - before).toBe(1);
  });

  it("keeps each tenant's session to one URL apart: closing one tenant's leaves the platform's and the other's", async () => {
    const { pool } = suite.gw;
    const tools = [null, 'acme', 'globex'].map((tenantId) =>
      mcpTool(server.url, 'echo', { tenantId, name: `echo_${tenantId ?? 'platform'}` }),
    );
    const before = server.initializeCount;
    for (const tool of tools) await suite.gw.call(tool, { message: 'hi' });
    expect(server.initializeCount - before).toBe(3); // one session per owner
    await pool.close(server.url, 'acme');
    expect(pool.stats().servers.filter((s) => s.connected)).toHaveLength(2);
    for (const tool of tools) await suite.gw.call(tool, { message: 'again' });
    expect(server.initializeCount - before).toBe(4); // only acme's was opened again
  });

  it("gives each tenant calling a platform-wide tool a session of its own; closing the platform's closes them all", async () => {
    const { pool } = suite.gw;
    const platformTool = mcpTool(server.url, 'echo', { tenantId: null, name: 'echo_shared' });
    const ownTool = mcpTool(server.url, 'echo', { tenantId: 'acme', name: 'echo_acme' });
    const before = server.initializeCount;
    for (const caller of ['acme', 'globex', 'acme', 'globex'])
      await suite.gw.call(platformTool, { message: caller }, caller);
    expect(server.initializeCount - before).toBe(2); // one per calling tenant, each reused
    await suite.gw.call(ownTool, { message: 'own' }, 'acme');
    expect(server.initializeCount - before).toBe(3); // acme's own tool: acme's own session, not the platform's for acme
    const sessions = server.sessionIdsOfCalls.slice(-5);
    expect(new Set(sessions).size).toBe(3);
    expect(sessions[0]).toBe(sessions[2]); // acme's two platform calls
    expect(sessions[1]).toBe(sessions[3]); // globex's

    await pool.close(server.url, null);
    expect(pool.stats().servers.filter((s) => s.connected)).toHaveLength(1); // acme's own stays
  });

  it("lets a side-effecting call in flight finish when an admin's change retires its session, then closes it", async () => {
    const { pool } = suite.gw;
    const tool = mcpTool(server.url, 'slow', { tenantId: 'acme', name: 'slow_write', sideEffect: 'SIDE_EFFECT' });
    await suite.gw.call(tool, { ms: 1 });
    const before = server.initializeCount;
    const calls = server.toolCalls;
    server.holdSlowCalls();
    try {
      const inFlight = suite.gw.call(tool, { ms: 1 });
      await waitFor(() => server.toolCalls > calls, { description: 'the held call to reach the server' });
      await pool.close(server.url, 'acme');
      // A call after the change opens a new session while the retired one still works.
      const after = mcpTool(server.url, 'echo', { tenantId: 'acme', name: 'echo_after' });
      await expect(suite.gw.call(after, { message: 'after' })).resolves.toMatchObject({
        output: { content: 'echo: after' },
      });
      expect(server.initializeCount - before).toBe(1);
      const open = server.openSessionCount;
      server.releaseSlowCalls();
      await expect(inFlight).resolves.toMatchObject({ output: { content: 'waited 1' } });
      expect(server.cancelled).toEqual([]);
      await waitFor(() => server.openSessionCount === open - 1, { description: 'the retired session to be closed' });
    } finally {
      server.releaseSlowCalls();
    }
  });

  it('returns an isError result as a tool error output', async () => {
    const outcome = await suite.gw.call(mcpTool(server.url, 'fail'));
    expect(outcome).toMatchObject({ output: { content: 'inventory service is down', isError: true }, attempts: 1 });
  });

  it('cancels a slow tool at the tool timeout and the server sees the cancellation', async () => {
    await suite.gw.call(mcpTool(server.url, 'echo'), { message: 'warm up' });
    const cancelledBefore = server.cancelled.length;
    const outcome = await suite.gw.call(mcpTool(server.url, 'slow', { timeoutMs: 300, sideEffect: 'SIDE_EFFECT' }), {
      ms: 10_000,
    });
    expect(outcome).toMatchObject({
      timedOut: true,
      attempts: 1,
      error: { errorClass: 'TIMEOUT', reachedRemote: true },
    });
    await waitFor(() => server.cancelled.length === cancelledBefore + 1, {
      description: 'notifications/cancelled to reach the slow tool',
    });
  });

  it('re-sends a request refused with 404 (unknown session) once, on a fresh session', async () => {
    const tool = mcpTool(server.url, 'echo', { sideEffect: 'HIGH_RISK' });
    await suite.gw.call(tool, { message: 'first' });
    const before = { init: server.initializeCount, calls: server.toolCalls };
    server.forgetSessions();
    await expect(suite.gw.call(tool, { message: 'second' })).resolves.toMatchObject({
      output: { content: 'echo: second' },
      attempts: 1,
    });
    expect(server.initializeCount - before.init).toBe(1);
    expect(server.toolCalls - before.calls).toBe(1);
  });

  it('reports an unknown remote tool as the tool error the server returns', async () => {
    const outcome = await suite.gw.call(mcpTool(server.url, 'no_such_tool'));
    expect(outcome.output).toMatchObject({ isError: true });
    expect(outcome.output?.content).toContain('no_such_tool');
  });
});

describe('McpClientPool.listTools / listAllTools', () => {
  const server = new SdkMcpServer({ pageSize: 2, pagedToolCount: 5 });
  const gw = new McpHarness();
  beforeAll(() => server.start());
  afterAll(async () => {
    await gw.close();
    await server.stop();
  });

  it('returns one page with its cursor', async () => {
    const page = await gw.pool.listTools({ url: server.url });
    expect(page.tools.map((t) => t.name)).toEqual(['paged_0', 'paged_1']);
    expect(page.nextCursor).toBe('2');
    const next = await gw.pool.listTools({ url: server.url }, { cursor: page.nextCursor });
    expect(next.tools.map((t) => t.name)).toEqual(['paged_2', 'paged_3']);
  });

  it('follows every page', async () => {
    const tools = await gw.pool.listAllTools({ url: server.url });
    expect(tools.map((t) => t.name)).toEqual(['paged_0', 'paged_1', 'paged_2', 'paged_3', 'paged_4']);
  });

  it('gives up on a listing whose pages hold more than TOOL_MAX_RESPONSE_BYTES in all, each page under it', async () => {
    const description = 'd'.repeat(1024 * 1024);
    const pages = Math.ceil(TOOL_MAX_RESPONSE_BYTES / description.length) + 1;
    const wide = await new CatalogMcpServer(
      Array.from({ length: pages }, (_v, i) => catalogTool(`wide_${i}`, { description })),
      { pageSize: 1 },
    ).start();
    try {
      await expect(gw.pool.listAllTools({ url: wide.url })).rejects.toMatchObject({
        errorClass: 'MCP_PROTOCOL_ERROR',
        message: expect.stringContaining(`more than ${TOOL_MAX_RESPONSE_BYTES} bytes`),
      });
    } finally {
      await wide.stop();
    }
  });

  it("lets a tools/list in flight finish when an admin's change retires its session, then closes the session", async () => {
    const catalog = await new CatalogMcpServer([catalogTool('kept_a'), catalogTool('kept_b')]).start();
    const endpoint = { url: catalog.url, owner: 'acme' };
    try {
      await gw.pool.listAllTools(endpoint);
      catalog.holdLists();
      const listing = gw.pool.listAllTools(endpoint);
      await waitFor(() => catalog.listCalls === 2, { description: 'the second tools/list to reach the server' });
      const closing = gw.pool.close(catalog.url, 'acme');
      await new Promise((r) => setTimeout(r, 100));
      catalog.release();
      await expect(listing).resolves.toEqual([
        expect.objectContaining({ name: 'kept_a' }),
        expect.objectContaining({ name: 'kept_b' }),
      ]);
      await closing;
      expect(gw.pool.stats().servers.filter((s) => s.url === catalog.url && s.connected)).toEqual([]);
    } finally {
      await catalog.stop();
    }
  });

  it('gives up on a listing of more than 10,000 tools', async () => {
    const many = await new CatalogMcpServer(
      Array.from({ length: 10_001 }, (_v, i) => ({ name: `t${i}`, inputSchema: { type: 'object' as const } })),
      { pageSize: 2500 },
    ).start();
    try {
      await expect(gw.pool.listAllTools({ url: many.url })).rejects.toMatchObject({
        errorClass: 'MCP_PROTOCOL_ERROR',
        message: expect.stringContaining('more than 10000 tools'),
      });
    } finally {
      await many.stop();
    }
  });
});

describe('McpClientPool: a server that refuses the credentials', () => {
  let refusing: Server;
  let url: string;
  const requests: string[] = [];
  const gw = new McpHarness();
  beforeAll(async () => {
    refusing = createServer((req, res) => {
      requests.push(req.method ?? '?');
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('invalid token');
    });
    url = `http://127.0.0.1:${await listenOnLoopback(refusing)}/mcp`;
  });
  afterAll(async () => {
    await gw.close();
    await closeHttpServer(refusing);
  });

  it('fails the call once, as not transient, naming the credentials, also after the auto fallback to SSE', async () => {
    const outcome = await gw.call(mcpTool(url, 'echo', { sideEffect: 'READ_ONLY' }), { message: 'x' });
    // The POST of the streamable transport, then the GET of the legacy SSE fallback: both answered 401.
    expect(requests).toEqual(['POST', 'GET']);
    expect(outcome.attempts).toBe(1);
    expect(outcome.error).toMatchObject({ errorClass: 'MCP_CONNECT_FAILED', transient: false, reachedRemote: false });
    expect(outcome.error?.options.httpStatus).toBe(401);
    expect(outcome.error?.message).toContain('the server refused the credentials');
  });
});
