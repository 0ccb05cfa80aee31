import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { toolFixture } from '@test/support/tool-fixture';
import { waitFor } from '@test/support/wait-for';
import { serverAndHarnessPerTest } from './support/mcp-harness';
import { SdkSseMcpServer } from './support/sdk-sse-mcp.server';

/**
 * The SDK client (the legacy HTTP+SSE path) gives a JSON-RPC error a server answers and its own failures (connection
 * closed -32000, request timed out -32001) the same McpError: the gateway must tell what the server said from a
 * session it lost, or a server's "-32000 Database unavailable" reads as a lost connection and is sent again.
 */
describe('McpClientPool on the SDK client path: what the server answered vs what the client lost', () => {
  const script = { code: -32000, answer: true, calls: 0 };
  const server = new SdkSseMcpServer(() => {
    const mcp = new Server({ name: 'scripted-sse', version: '1.0.0' }, { capabilities: { tools: {} } });
    mcp.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: 'work', inputSchema: { type: 'object' as const } }],
    }));
    mcp.setRequestHandler(CallToolRequestSchema, async () => {
      script.calls++;
      if (!script.answer) return new Promise<never>(() => undefined);
      throw new McpError(script.code, 'Database unavailable');
    });
    return mcp;
  });
  const suite = serverAndHarnessPerTest(server, () => Object.assign(script, { code: -32000, answer: true }));
  const tool = (overrides: Partial<ToolDescriptor> = {}): ToolDescriptor =>
    toolFixture({
      name: 'sse_work',
      serviceType: 'MCP_REMOTE',
      endpoint: server.url,
      remoteName: 'work',
      httpMethod: null,
      sideEffect: 'READ_ONLY',
      ...overrides,
    });

  it.each([
    ['-32000 (implementation-defined server error, the SDK code of a closed connection)', -32000],
    ['-32001 (the SDK code of a request timeout)', -32001],
    ['-32603 (internal error)', -32603],
  ])('reports %s answered by the server as what it said, once', async (_label, code) => {
    script.code = code;
    const before = script.calls;
    const outcome = await suite.gw.call(tool());
    expect(outcome.error?.errorClass).toBe('MCP_PROTOCOL_ERROR');
    expect(outcome.error?.message).toContain('Database unavailable');
    expect(outcome.error?.transient).toBe(false);
    expect(outcome.attempts).toBe(1);
    expect(script.calls - before).toBe(1);
  });

  it('still reports a session lost mid-call as CONNECTION_LOST (the outcome unknown, never sent again blindly)', async () => {
    script.answer = false;
    const before = script.calls;
    const call = suite.gw.call(tool({ sideEffect: 'SIDE_EFFECT' }));
    await waitFor(() => script.calls > before, { description: 'the call to reach the server' });
    await server.dropStreams();
    const outcome = await call;
    expect(outcome.error).toMatchObject({ errorClass: 'CONNECTION_LOST', reachedRemote: true });
    expect(outcome.attempts).toBe(1);
  });

  it('still reports its own timeout as a timeout', async () => {
    script.answer = false;
    const outcome = await suite.gw.call(tool({ timeoutMs: 300 }));
    expect(outcome.timedOut).toBe(true);
    expect(outcome.error?.errorClass).toBe('TIMEOUT');
  });
});
