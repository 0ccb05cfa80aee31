import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { AiToolEntity } from '@app/modules/tool-registry/ai-tool.entity';
import { McpToolSyncWriter } from '@app/modules/mcp-services/mcp-tool-sync.writer';
import { McpSyncLeases } from '@app/modules/mcp-services/mcp-sync.lease';
import type { McpToolSyncPlan } from '@app/modules/mcp-services/mcp-tool-sync.plan';
import type { TestGateway } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, describeEachDialect, type TestDatabase } from '@test/support/test-database';
import { startMcpSyncGateway } from './support/mcp-sync-gateway';

function row(name: string, overrides: Partial<AiToolEntity> = {}): AiToolEntity {
  return {
    id: randomUUID(),
    tenantId: 'acme',
    scopeKey: 'acme',
    name,
    nameKey: name.toLowerCase(),
    description: `${name} tool`,
    parameters: { type: 'object' },
    serviceType: 'MCP_REMOTE',
    endpoint: 'http://127.0.0.1:9/mcp',
    httpMethod: null,
    headers: null,
    timeoutMs: null,
    permissionTags: [],
    tags: ['mcp'],
    sideEffect: 'READ_ONLY',
    remoteName: name,
    requires: [],
    enabled: true,
    status: 'ACTIVE',
    source: 'MCP',
    version: 1,
    hitl: null,
    result: null,
    mcpServiceId: null,
    definitionChecksum: null,
    createdAt: 1,
    updatedAt: 1,
    ...overrides,
  };
}

describeEachDialect('McpToolSyncWriter: one row the database refuses (issue 9 #7)', (dialect) => {
  let db: TestDatabase;
  let gw: TestGateway;

  beforeAll(async () => {
    db = await createTestDatabaseUrl(dialect);
    gw = await startMcpSyncGateway(db.url);
  });

  afterAll(async () => {
    await gw?.close();
    await db?.drop();
  });

  it('writes the other rows and returns the refused one, instead of failing the whole sync', async () => {
    const rows = [
      row('writer_first'),
      row('writer_refused', { description: null as unknown as string }),
      row('writer_last'),
    ];
    const plan: McpToolSyncPlan = {
      steps: rows.map((r) => ({ kind: 'insert' as const, row: r })),
      added: rows.map((r) => r.name),
      updated: [],
      disabled: [],
      unchanged: [],
      collisions: [],
      rejected: [],
    };
    // A service whose server is not there: registered (DOWN), so the writer finds its row.
    const service = (
      await gw.http
        .post('/api/v1/admin/mcp-services')
        .set(gw.admin)
        .send({ name: 'writer-service', kind: 'STATIC', url: 'http://127.0.0.1:9/mcp' })
        .expect(201)
    ).body;
    const attempt = await gw.app.get(McpSyncLeases).acquire(`writer-test-${dialect}`);
    if (!attempt.held) throw new Error('the test lease is held elsewhere');
    try {
      const { outcome, failed } = await gw.app.get(McpToolSyncWriter).apply(plan, attempt.held, service);
      expect(outcome).toBe('written');
      expect(failed.map((f) => f.step.row.name)).toEqual(['writer_refused']);
      expect(failed[0].reason).toEqual(expect.any(String));
    } finally {
      await attempt.held.release();
    }
    const stored: Array<{ name: string }> = await gw.app
      .get(DataSource)
      .query("SELECT name FROM ai_tool WHERE name LIKE 'writer!_%' ESCAPE '!' ORDER BY name");
    expect(stored.map((r) => r.name)).toEqual(['writer_first', 'writer_last']);
  });
});
