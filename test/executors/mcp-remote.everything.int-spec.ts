import { Test, TestingModule } from '@nestjs/testing';
import { GatewayConfigModule } from '@app/config/config.module';
import { OutboundGuard } from '@app/modules/executors/outbound/outbound-guard';
import { OutboundHttpAgent } from '@app/modules/executors/outbound/outbound-http.agent';
import { McpClientPool } from '@app/modules/executors/mcp/mcp-client.pool';
import { McpRemoteToolExecutor } from '@app/modules/executors/mcp/mcp-remote.executor';
import { ToolCallPolicy } from '@app/modules/executors/call-policy/tool-call-policy';
import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { ToolHeadersResolver } from '@app/modules/executors/secrets/tool-headers.resolver';
import { headersResolverOf, executorTestConfig, invocationOf } from './support/executor-fixtures';
import { toolFixture } from '@test/support/tool-fixture';
import { EverythingServerProcess } from './support/everything-server.process';
import { CountingMcpProxy } from './support/counting-mcp.proxy';

describe.each([
  ['streamable HTTP', 'streamableHttp', 'streamable-http'],
  ['SSE', 'sse', 'sse'],
] as const)('McpRemoteToolExecutor against server-everything over %s', (_label, mode, expectedTransport) => {
  const everything = new EverythingServerProcess(mode);
  let proxy: CountingMcpProxy;
  let moduleRef: TestingModule;
  let pool: McpClientPool;
  let executor: McpRemoteToolExecutor;
  let policy: ToolCallPolicy;
  let serverUrl: string;

  beforeAll(async () => {
    await everything.start();
    proxy = await new CountingMcpProxy(everything.port).start();
    serverUrl = `http://127.0.0.1:${proxy.port}${mode === 'sse' ? '/sse' : '/mcp'}`;
    moduleRef = await Test.createTestingModule({
      imports: [GatewayConfigModule.forRoot(executorTestConfig())],
      providers: [
        OutboundGuard,
        OutboundHttpAgent,
        McpClientPool,
        McpRemoteToolExecutor,
        ToolCallPolicy,
        { provide: ToolHeadersResolver, useValue: headersResolverOf(executorTestConfig()) },
      ],
    }).compile();
    await moduleRef.init();
    pool = moduleRef.get(McpClientPool);
    executor = moduleRef.get(McpRemoteToolExecutor);
    policy = moduleRef.get(ToolCallPolicy);
  }, 30000);

  afterAll(async () => {
    await moduleRef?.close();
    await proxy?.stop();
    await everything.stop();
  });

  const mcpTool = (name: string, overrides: Partial<ToolDescriptor> = {}): ToolDescriptor =>
    toolFixture({
      name: `everything_${name.replace(/-/g, '_')}`,
      serviceType: 'MCP_REMOTE',
      endpoint: serverUrl,
      remoteName: name,
      httpMethod: null,
      ...overrides,
    });

  const call = (tool: ToolDescriptor, args: Record<string, unknown>) =>
    policy.run(tool, (attempt, signal) => executor.execute(invocationOf(tool, args, attempt, signal)));

  it('calls echo and get-sum by their remote names and maps the text content', async () => {
    await expect(call(mcpTool('echo'), { message: 'hello gateway' })).resolves.toMatchObject({
      output: { content: 'Echo: hello gateway' },
      attempts: 1,
    });
    await expect(call(mcpTool('get-sum'), { a: 2, b: 40 })).resolves.toMatchObject({
      output: { content: 'The sum of 2 and 40 is 42.' },
    });
  });

  it(`found the server's transport on its own (auto → ${expectedTransport})`, () => {
    expect(pool.stats().servers).toEqual([
      { url: serverUrl, transport: expectedTransport, connects: 1, connected: true },
    ]);
  });

  it('reuses one session for 20 calls, concurrent and sequential (one initialize seen by the server)', async () => {
    const before = { init: proxy.count('initialize'), calls: proxy.count('tools/call') };
    const tool = mcpTool('echo');
    const concurrent = await Promise.all(Array.from({ length: 10 }, (_v, i) => call(tool, { message: `c${i}` })));
    for (let i = 0; i < 10; i++) await call(tool, { message: `s${i}` });
    expect(concurrent.map((o) => o.output?.content)).toEqual(Array.from({ length: 10 }, (_v, i) => `Echo: c${i}`));
    expect(proxy.count('tools/call') - before.calls).toBe(20);
    expect(proxy.count('initialize') - before.init).toBe(0);
    expect(proxy.count('initialize')).toBe(1);
    expect(pool.stats().totalConnects).toBe(1);
  });

  it('opens one session for concurrent first calls after the pool was closed', async () => {
    await pool.close();
    const before = proxy.count('initialize');
    const outcomes = await Promise.all(Array.from({ length: 8 }, (_v, i) => call(mcpTool('get-sum'), { a: i, b: 1 })));
    expect(outcomes.every((o) => o.output?.content.startsWith(`The sum of`))).toBe(true);
    expect(proxy.count('initialize') - before).toBe(1);
  });

  it('lists the server tools through listAllTools', async () => {
    const names = (await pool.listAllTools({ url: serverUrl, transport: 'auto' })).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum']));
  });

  it('returns the validation failure of the server as a tool error, not retried', async () => {
    const before = proxy.count('tools/call');
    const outcome = await call(mcpTool('get-sum'), { a: 'not a number' });
    expect(outcome.attempts).toBe(1);
    expect(outcome.output?.isError).toBe(true);
    expect(outcome.output?.content).toContain('Input validation error');
    expect(proxy.count('tools/call') - before).toBe(1);
  });

  it('opens a new session after the server process restarts on the same port', async () => {
    await expect(call(mcpTool('echo'), { message: 'before' })).resolves.toMatchObject({
      output: { content: 'Echo: before' },
    });
    const before = proxy.count('initialize');
    await everything.stop();
    await everything.start();
    const outcome = await call(mcpTool('echo'), { message: 'after' });
    expect(outcome.output?.content).toBe('Echo: after');
    expect(proxy.count('initialize') - before).toBe(1);
  }, 30000);

  it('returns an unknown remote tool as a tool error naming it', async () => {
    const outcome = await call(mcpTool('no-such-tool'), {});
    expect(outcome.output).toMatchObject({ isError: true });
    expect(outcome.output?.content).toContain('no-such-tool');
  });
});
