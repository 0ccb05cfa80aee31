import type { GatewayConfig } from '@app/config/gateway-config';
import { McpClientPool, type McpToolsPage } from '@app/modules/executors/mcp/mcp-client.pool';
import type { OutboundHttpAgent } from '@app/modules/executors/outbound/outbound-http.agent';
import type { ToolHeadersResolver } from '@app/modules/executors/secrets/tool-headers.resolver';
import { ToolErrorClass } from '@app/modules/executors/tool-error-class';
import { ToolCallError } from '@app/modules/executors/tool-executor';
import { McpServiceLister, McpServiceUnreachableError } from './mcp-service.lister';
import type { McpServiceRecord } from './mcp-service.types';
import { NacosInstanceCache } from './nacos/nacos-instance.cache';
import type { NacosNamingPort } from './nacos/nacos-naming.adapter';

const service = {
  id: 'svc-1',
  name: 'slow',
  kind: 'STATIC',
  url: 'http://mcp.test/mcp',
  tenantId: null,
} as McpServiceRecord;

/**
 * A lister over a real pool whose tools/list pages (endless: each names a next cursor) take `pageDelayMs` of the fake
 * clock; a page given a shorter timeout spends it and fails as the pool reports a page timeout. Returns the timeout
 * each page request was given.
 */
function slowPagingLister(pageDelayMs: number, pages = Infinity): { lister: McpServiceLister; asked: number[] } {
  const pool = new McpClientPool({} as OutboundHttpAgent);
  const asked: number[] = [];
  jest.spyOn(pool, 'listTools').mockImplementation((_endpoint, options = {}): Promise<McpToolsPage> => {
    const timeoutMs = options.timeoutMs!;
    asked.push(timeoutMs);
    if (timeoutMs < pageDelayMs) {
      jest.advanceTimersByTime(timeoutMs);
      return Promise.reject(
        new ToolCallError('MCP server did not answer in time', ToolErrorClass.MCP_TIMEOUT, {
          transient: true,
          reachedRemote: true,
        }),
      );
    }
    jest.advanceTimersByTime(pageDelayMs);
    const n = asked.length;
    return Promise.resolve({
      tools: [{ name: `t${n}`, inputSchema: { type: 'object' } }],
      nextCursor: n < pages ? `c${n}` : undefined,
    });
  });
  const lister = new McpServiceLister(
    pool,
    { headersToSend: () => Promise.resolve({ headers: undefined, hidden: [] }) } as unknown as ToolHeadersResolver,
    new NacosInstanceCache(),
    {} as NacosNamingPort,
    {} as GatewayConfig,
  );
  return { lister, asked };
}

describe('McpServiceLister: the time a listing may take', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  it('fails a listing whose endless pages each come just within their timeout once its total time is spent', async () => {
    const { lister, asked } = slowPagingLister(999);
    const started = performance.now();
    const listing = lister.list(service, undefined, { pageMs: 1000, totalMs: 5000 });
    await expect(listing).rejects.toBeInstanceOf(McpServiceUnreachableError);
    await expect(listing).rejects.toThrow('did not list all its tools within 5000 ms (5 pages read)');
    // Five pages of 999 ms, then the last 5 ms: never one page timeout past the total.
    expect(asked).toEqual([1000, 1000, 1000, 1000, 1000, 5]);
    expect(performance.now() - started).toBe(5000);
  });

  it('returns every page of a listing that ends within its time', async () => {
    const { lister, asked } = slowPagingLister(999, 5);
    const listing = await lister.list(service, undefined, { pageMs: 1000, totalMs: 5000 });
    expect(listing.tools.map((t) => t.name)).toEqual(['t1', 't2', 't3', 't4', 't5']);
    expect(asked).toEqual([1000, 1000, 1000, 1000, 1000]);
  });
});
