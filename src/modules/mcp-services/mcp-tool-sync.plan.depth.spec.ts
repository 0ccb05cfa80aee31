import type { AiToolEntity } from '@app/modules/tool-registry/ai-tool.entity';
import { planMcpToolSync, type McpToolSyncInput } from './mcp-tool-sync.plan';
import type { ListedMcpTool } from './mcp-tool.checksum';
import type { McpServiceRecord } from './mcp-service.types';

const service = {
  id: 'svc-1',
  name: 'deep',
  kind: 'STATIC',
  tenantId: 'acme',
  toolPrefix: 'deep_',
} as McpServiceRecord;
let ids = 0;
const input = (listed: ListedMcpTool[], rows: AiToolEntity[] = []): McpToolSyncInput => ({
  service,
  target: { serviceType: 'MCP_REMOTE', endpoint: 'http://mcp.example.com/mcp' },
  listed,
  rows,
  nameHolders: [],
  goneServiceIds: new Set(),
  checkSchema: () => [],
  now: 1000,
  newId: () => `id-${++ids}`,
});

describe('planMcpToolSync with a schema nested thousands of levels deep', () => {
  it('rejects that tool (disabling its row) instead of overflowing the stack in the checksum', () => {
    const [row] = planMcpToolSync(input([{ name: 'lookup', inputSchema: { type: 'object' } }])).steps.map((s) => s.row);
    let deep: unknown = { type: 'string' };
    for (let i = 0; i < 20_000; i++) deep = { type: 'array', items: deep };
    const plan = planMcpToolSync(
      input(
        [{ name: 'lookup', inputSchema: { type: 'object', properties: { a: deep } } }],
        [{ ...row, status: 'ACTIVE' }],
      ),
    );
    expect(plan.rejected).toEqual([
      { remoteName: 'lookup', problems: [expect.stringContaining('nested deeper than 64 levels')] },
    ]);
    expect(plan.disabled).toEqual(['deep_lookup']);
  });
});
