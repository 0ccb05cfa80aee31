import { OutboundGuard } from '@app/modules/executors/outbound/outbound-guard';
import { OutboundHttpAgent } from '@app/modules/executors/outbound/outbound-http.agent';
import { McpClientPool } from '@app/modules/executors/mcp/mcp-client.pool';
import { McpRemoteToolExecutor } from '@app/modules/executors/mcp/mcp-remote.executor';
import { ToolCallPolicy } from '@app/modules/executors/call-policy/tool-call-policy';
import { idempotencyKeyOf } from '@app/modules/executors/remote-context/remote-call.context';
import { toolFixture } from '@test/support/tool-fixture';
import { executorTestConfig, headersResolverOf, invocationOf } from './support/executor-fixtures';
import { SdkMcpServer } from './support/sdk-mcp.server';
import { SdkSseMcpServer } from './support/sdk-sse-mcp.server';

type CallContext = { tenantId: string | null; userId: string | null; sessionId: string | null; toolCallId: string };

/** Every MCP tools/call carries the call's context in params._meta, on each transport the gateway speaks. */
describe.each([
  ['streamable HTTP, SSE answers', () => new SdkMcpServer()],
  ['streamable HTTP, JSON answers', () => new SdkMcpServer({ jsonResponse: true })],
  ['legacy HTTP+SSE (the SDK client path)', () => new SdkSseMcpServer()],
])('McpRemoteToolExecutor sends _meta on tools/call: %s', (_label, makeServer) => {
  const server = makeServer();
  const config = executorTestConfig();
  const agent = new OutboundHttpAgent(new OutboundGuard(config), config);
  const pool = new McpClientPool(agent);
  const executor = new McpRemoteToolExecutor(pool, headersResolverOf(config), config);
  const policy = new ToolCallPolicy(config);
  const echo = () =>
    toolFixture({
      name: 'remote_echo',
      serviceType: 'MCP_REMOTE',
      endpoint: server.url,
      remoteName: 'echo',
      httpMethod: null,
    });
  const call = (ctx: CallContext) =>
    policy.run(echo(), (attempt, signal) =>
      executor.execute({ ...invocationOf(echo(), { message: 'hi' }, attempt, signal), ...ctx }),
    );

  beforeAll(() => server.start());
  afterAll(async () => {
    await pool.onApplicationShutdown();
    await agent.onApplicationShutdown();
    await server.stop();
  });

  it('with tenantId, userId, sessionId, toolCallId and the idempotency key', async () => {
    const ctx = { tenantId: 'acme', userId: '张三', sessionId: 's-1', toolCallId: 'call_1' };
    const outcome = await call(ctx);
    expect(outcome.output?.content).toBe('echo: hi');
    expect(server.echoMetas.at(-1)).toEqual({ ...ctx, idempotencyKey: idempotencyKeyOf(ctx) });
  });

  it('with sessionId null for a call without a session, and a key of its own per tenant', async () => {
    await call({ tenantId: 'globex', userId: 'u2', sessionId: null, toolCallId: 'call_1' });
    const meta = server.echoMetas.at(-1) as Record<string, unknown>;
    expect(meta).toMatchObject({ tenantId: 'globex', userId: 'u2', sessionId: null, toolCallId: 'call_1' });
    expect(meta.idempotencyKey).not.toBe(
      idempotencyKeyOf({ tenantId: 'acme', userId: null, sessionId: null, toolCallId: 'call_1' }),
    );
  });
});
