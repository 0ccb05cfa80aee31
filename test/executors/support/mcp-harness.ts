import type { GatewayConfig } from '@app/config/gateway-config';
import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { OutboundGuard } from '@app/modules/executors/outbound/outbound-guard';
import { OutboundHttpAgent } from '@app/modules/executors/outbound/outbound-http.agent';
import { McpClientPool } from '@app/modules/executors/mcp/mcp-client.pool';
import { McpRemoteToolExecutor } from '@app/modules/executors/mcp/mcp-remote.executor';
import { ToolCallPolicy } from '@app/modules/executors/call-policy/tool-call-policy';
import { waitFor } from '@test/support/wait-for';
import { executorTestConfig, headersResolverOf, invocationOf } from './executor-fixtures';

/** The pool, the MCP executor and the policy wired as the ExecutorsModule wires them. */
export class McpHarness {
  readonly agent: OutboundHttpAgent;
  readonly pool: McpClientPool;
  readonly executor: McpRemoteToolExecutor;
  readonly policy: ToolCallPolicy;

  constructor(config: GatewayConfig = executorTestConfig()) {
    this.agent = new OutboundHttpAgent(new OutboundGuard(config), config);
    this.pool = new McpClientPool(this.agent, config);
    this.executor = new McpRemoteToolExecutor(this.pool, headersResolverOf(config), config);
    this.policy = new ToolCallPolicy(config);
  }

  /** One call of `tool` for `callerTenant` (the tenant whose session or key runs it). */
  call(tool: ToolDescriptor, args: Record<string, unknown> = {}, callerTenant = 't1') {
    return this.policy.run(tool, (attempt, signal) =>
      this.executor.execute({ ...invocationOf(tool, args, attempt, signal), tenantId: callerTenant }),
    );
  }

  /**
   * Waits until the gateway has seen every socket to `url` close, as it would while a redeployed server is
   * away (a request written in the instant between the server's close and the client noticing it is a
   * keep-alive race that no client can tell from a crash mid-request).
   */
  async seesServerGone(url: string): Promise<void> {
    const origin = new URL(url).origin;
    await waitFor(
      () =>
        ((this.agent.scope(null).dispatcher.stats[origin] as { connected?: number } | undefined)?.connected ?? 0) === 0,
      {
        description: `the sockets to ${origin} to close`,
      },
    );
  }

  async close(): Promise<void> {
    await this.pool.onApplicationShutdown();
    await this.agent.onApplicationShutdown();
  }
}

/**
 * Runs `server` for the whole describe block and gives each test a fresh harness (pool, executor, policy);
 * `afterEachTest` resets what a test scripted on the server.
 */
export function serverAndHarnessPerTest(
  server: { start(): Promise<unknown>; stop(): Promise<void> },
  afterEachTest?: () => void,
): { readonly gw: McpHarness } {
  const suite = {} as { gw: McpHarness };
  beforeAll(() => server.start());
  afterAll(() => server.stop());
  beforeEach(() => (suite.gw = new McpHarness()));
  afterEach(() => {
    afterEachTest?.();
    return suite.gw.close();
  });
  return suite;
}
