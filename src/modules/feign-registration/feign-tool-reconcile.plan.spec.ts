import type { AiToolEntity } from '@app/modules/tool-registry/ai-tool.entity';
import { planOrphan, planTool } from './feign-tool-reconcile.plan';
import { definitionChecksum } from './feign-tool.checksum';
import type { LocalToolDefinition, LocalToolRegistration } from './feign-tool.types';

const NOW = 1_700_000_000_000;

function tool(overrides: Partial<LocalToolDefinition> = {}): LocalToolRegistration {
  const definition: LocalToolDefinition = {
    name: 'get_order',
    description: 'Looks up an order.',
    parameters: { type: 'object', properties: { orderId: { type: 'string' } } },
    source: 'FEIGN',
    serviceType: 'FEIGN',
    endpoint: 'OrdersService.getOrder',
    sideEffect: 'READ_ONLY',
    timeoutMs: 1000,
    permissionTags: ['orders:read'],
    tags: [],
    requires: [],
    hitl: null,
    result: null,
    ...overrides,
  };
  return {
    definition,
    checksum: definitionChecksum(definition),
    location: { provider: 'OrdersService', method: 'getOrder', module: 'M' },
    handler: () => '',
  };
}

/** The row the scanner would have written for `t`, then changed by `edits` (an admin's PATCH). */
function rowOf(t: LocalToolRegistration, edits: Partial<AiToolEntity> = {}): AiToolEntity {
  const step = planTool(t, undefined, NOW - 1000);
  if (step.kind !== 'insert') throw new Error('expected an insert');
  return { ...step.row, version: 4, ...edits };
}

describe('planTool', () => {
  it('inserts a new tool as version 1, platform-wide, enabled, with its checksum', () => {
    const step = planTool(tool(), undefined, NOW);
    expect(step).toMatchObject({
      kind: 'insert',
      row: {
        version: 1,
        tenantId: null,
        scopeKey: '*',
        enabled: true,
        status: 'ACTIVE',
        source: 'FEIGN',
        serviceType: 'FEIGN',
      },
    });
    expect(step.kind === 'insert' && step.row.definitionChecksum).toBe(tool().checksum);
  });

  it('leaves a row with the same checksum alone, admin changes included', () => {
    const t = tool();
    expect(planTool(t, rowOf(t, { enabled: false, permissionTags: [] }), NOW).kind).toBe('unchanged');
  });

  it('never writes over a DB or MCP tool of the same name', () => {
    const t = tool();
    expect(planTool(t, rowOf(t, { source: 'DB', serviceType: 'HTTP', definitionChecksum: null }), NOW).kind).toBe(
      'clash',
    );
    expect(planTool(t, rowOf(t, { source: 'MCP', serviceType: 'MCP_REMOTE' }), NOW).kind).toBe('clash');
  });

  it('takes every decorator field, admin-owned ones too, when nobody edited the row', () => {
    const before = tool();
    const after = tool({ description: 'New.', timeoutMs: 2000, permissionTags: ['orders:admin'] });
    const step = planTool(after, rowOf(before), NOW);
    expect(step).toMatchObject({
      kind: 'update',
      changes: {
        description: 'New.',
        timeoutMs: 2000,
        permissionTags: ['orders:admin'],
        version: 5,
        definitionChecksum: after.checksum,
      },
    });
  });

  it("keeps the admin's timeoutMs, permissionTags and enabled when the row was edited", () => {
    const before = tool();
    const after = tool({ description: 'New.', timeoutMs: 2000, sideEffect: 'IDEMPOTENT' });
    const step = planTool(after, rowOf(before, { timeoutMs: 9000, permissionTags: ['vip'], enabled: false }), NOW);
    if (step.kind !== 'update') throw new Error(`expected an update, got ${step.kind}`);
    expect(step.changes).toMatchObject({ description: 'New.', sideEffect: 'IDEMPOTENT', version: 5 });
    expect(step.changes).not.toHaveProperty('timeoutMs');
    expect(step.changes).not.toHaveProperty('permissionTags');
    expect(step.changes).not.toHaveProperty('enabled');
  });

  it('names the admin-patchable source fields a changed decorator replaces on an edited row', () => {
    const before = tool();
    const step = planTool(tool({ description: 'New.' }), rowOf(before, { sideEffect: 'HIGH_RISK' }), NOW);
    expect(step.kind === 'update' && step.replaced).toEqual(['sideEffect']);
  });

  it('re-activates an orphan-disabled row whose decorator is back, but never a retired one', () => {
    const t = tool();
    expect(planTool(t, rowOf(t, { status: 'DISABLED' }), NOW)).toMatchObject({
      kind: 'update',
      changes: { status: 'ACTIVE', version: 5 },
    });
    const retired = planTool(tool({ description: 'New.' }), rowOf(t, { status: 'RETIRED' }), NOW);
    expect(retired.kind === 'update' && retired.changes.status).toBeUndefined();
  });
});

describe('planOrphan', () => {
  it('disables an active row and bumps its version, never deletes', () => {
    expect(planOrphan(rowOf(tool()), NOW)).toMatchObject({
      kind: 'orphan',
      changes: { status: 'DISABLED', version: 5 },
    });
  });

  it('writes nothing for a row already disabled or retired', () => {
    expect(planOrphan(rowOf(tool(), { status: 'DISABLED' }), NOW)).toMatchObject({ kind: 'orphan', changes: null });
    expect(planOrphan(rowOf(tool(), { status: 'RETIRED' }), NOW)).toMatchObject({ kind: 'orphan', changes: null });
  });
});
