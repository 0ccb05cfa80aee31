import type { AiToolEntity } from '@app/modules/tool-registry/ai-tool.entity';
import { namesWanted, planMcpToolSync, type McpToolSyncInput } from './mcp-tool-sync.plan';
import type { ListedMcpTool } from './mcp-tool.checksum';
import type { McpServiceRecord } from './mcp-service.types';

const service: McpServiceRecord = {
  id: 'svc-1',
  name: 'weather',
  kind: 'NACOS',
  url: null,
  serviceName: 'weather-mcp',
  groupName: 'MCP',
  namespaceId: null,
  namespaceChosenBy: null,
  transport: null,
  path: null,
  tenantId: 'acme',
  headers: null,
  toolPrefix: 'weather_',
  health: 'UNKNOWN',
  healthReason: null,
  lastSyncAt: null,
  lastListHash: null,
  lastSyncResult: null,
  createdAt: 0,
  updatedAt: 0,
};

const tool = (name: string, extra: Partial<ListedMcpTool> = {}): ListedMcpTool => ({
  name,
  description: `${name} tool`,
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
  ...extra,
});

let ids = 0;
function input(listed: ListedMcpTool[], rows: AiToolEntity[] = [], nameHolders: AiToolEntity[] = []): McpToolSyncInput {
  return {
    service,
    target: { serviceType: 'MCP_NACOS', endpoint: 'weather-mcp@MCP' },
    listed,
    rows,
    nameHolders,
    goneServiceIds: new Set(),
    checkSchema: (s) => ((s as { type?: string }).type === 'object' ? [] : ['must have "type": "object" at the root']),
    now: 1000,
    newId: () => `id-${++ids}`,
  };
}

/** The rows a first sync of `listed` would insert. */
function synced(listed: ListedMcpTool[]): AiToolEntity[] {
  return planMcpToolSync(input(listed)).steps.map((s) => (s as { row: AiToolEntity }).row);
}

describe('planMcpToolSync', () => {
  it('inserts new tools as MCP rows of the service, prefixed, with the derived side effect', () => {
    const plan = planMcpToolSync(input([tool('forecast', { annotations: { readOnlyHint: true } }), tool('alerts')]));
    expect(plan.added).toEqual(['weather_forecast', 'weather_alerts']);
    const [row] = plan.steps.map((s) => (s as { row: AiToolEntity }).row);
    expect(row).toMatchObject({
      name: 'weather_forecast',
      remoteName: 'forecast',
      tenantId: 'acme',
      scopeKey: 'acme',
      source: 'MCP',
      serviceType: 'MCP_NACOS',
      endpoint: 'weather-mcp@MCP',
      mcpServiceId: 'svc-1',
      sideEffect: 'READ_ONLY',
      status: 'ACTIVE',
      enabled: true,
      version: 1,
      permissionTags: [],
    });
    expect(row.definitionChecksum).toMatch(/^[0-9a-f]{64}$/);
  });

  it('leaves unchanged tools alone and bumps the version of a changed one', () => {
    const rows = synced([tool('forecast'), tool('alerts')]);
    const plan = planMcpToolSync(input([tool('forecast', { description: 'better text' }), tool('alerts')], rows));
    expect(plan).toMatchObject({
      added: [],
      updated: ['weather_forecast'],
      unchanged: ['weather_alerts'],
      disabled: [],
    });
    expect(plan.steps).toEqual([
      expect.objectContaining({
        kind: 'update',
        changes: expect.objectContaining({ description: 'better text', version: 2 }),
      }),
    ]);
  });

  it('sees the same definition with keys in another order as unchanged', () => {
    const rows = synced([
      tool('forecast', { inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }),
    ]);
    const reordered = { properties: { city: { type: 'string' } }, type: 'object' };
    expect(planMcpToolSync(input([tool('forecast', { inputSchema: reordered })], rows)).unchanged).toEqual([
      'weather_forecast',
    ]);
  });

  it('disables a tool gone from the list and re-enables it when it returns', () => {
    const rows = synced([tool('forecast'), tool('alerts')]);
    const gone = planMcpToolSync(input([tool('forecast')], rows));
    expect(gone.disabled).toEqual(['weather_alerts']);
    expect(gone.steps[0]).toMatchObject({ kind: 'update', changes: { status: 'DISABLED', version: 2 } });

    const disabledRows = rows.map((r) =>
      r.name === 'weather_alerts' ? { ...r, status: 'DISABLED' as const, version: 2 } : r,
    );
    const back = planMcpToolSync(input([tool('forecast'), tool('alerts')], disabledRows));
    expect(back.updated).toEqual(['weather_alerts']);
    expect(back.steps[0]).toMatchObject({ changes: { status: 'ACTIVE', version: 3 } });
    // Already disabled and still gone: nothing to do.
    expect(planMcpToolSync(input([tool('forecast')], disabledRows)).steps).toEqual([]);
  });

  it('reports a name held by another tool as a collision and never writes over it', () => {
    const holder = { ...synced([tool('forecast')])[0], id: 'db-tool', source: 'DB' as const, mcpServiceId: null };
    const plan = planMcpToolSync(input([tool('forecast')], [], [holder]));
    expect(plan.steps).toEqual([]);
    expect(plan.collisions).toEqual([
      {
        remoteName: 'forecast',
        name: 'weather_forecast',
        existingToolId: 'db-tool',
        existingSource: 'DB',
        existingMcpServiceId: null,
        existingTenantId: 'acme',
      },
    ]);
  });

  it('takes back the DISABLED tool a deleted service of its scope left, and nothing another service still holds', () => {
    const left = (id: string, extra: Partial<AiToolEntity>): AiToolEntity => ({
      ...synced([tool('forecast')])[0],
      id,
      mcpServiceId: 'deleted-svc',
      status: 'DISABLED',
      enabled: false,
      ...extra,
    });
    const gone = new Set(['deleted-svc']);
    const taken = planMcpToolSync({ ...input([tool('forecast')], [], [left('old', {})]), goneServiceIds: gone });
    expect(taken).toMatchObject({ added: ['weather_forecast'], collisions: [] });
    expect(taken.steps).toEqual([
      {
        kind: 'update',
        row: expect.objectContaining({ id: 'old' }),
        outcome: 'added',
        changes: expect.objectContaining({ mcpServiceId: 'svc-1', status: 'ACTIVE', version: 2 }),
      },
    ]);
    // The admin's policy fields stay as they were set.
    expect(taken.steps[0].kind === 'update' && taken.steps[0].changes).not.toHaveProperty('enabled');

    for (const holder of [
      left('retired', { status: 'RETIRED' }),
      left('live', { mcpServiceId: 'other-svc' }),
      left('platform', { tenantId: null, scopeKey: '*' }),
    ]) {
      const plan = planMcpToolSync({ ...input([tool('forecast')], [], [holder]), goneServiceIds: gone });
      expect(plan.steps).toEqual([]);
      expect(plan.collisions).toEqual([expect.objectContaining({ existingToolId: holder.id })]);
    }
  });

  it('reports a holder of the name in another case as a collision too (MySQL compares names that way)', () => {
    const holder = { ...synced([tool('Forecast')])[0], id: 'db-tool', source: 'DB' as const, mcpServiceId: null };
    const plan = planMcpToolSync(input([tool('forecast')], [], [holder]));
    expect(plan.steps).toEqual([]);
    expect(plan.collisions).toEqual([
      expect.objectContaining({ remoteName: 'forecast', name: 'weather_forecast', existingToolId: 'db-tool' }),
    ]);
  });

  it('gives a new tool whose name differs only in case from a row of the service (even a disabled one) the hashed name', () => {
    const rows = synced([tool('Forecast')]).map((r) => ({ ...r, status: 'DISABLED' as const }));
    const plan = planMcpToolSync(input([tool('forecast')], rows));
    expect(plan.added).toEqual([expect.stringMatching(/^weather_forecast_[0-9a-f]{8}$/)]);
    expect(namesWanted(service, [tool('forecast')], rows)).toEqual(plan.added);
  });

  it('rejects tools with an unusable schema, a duplicate or no name, and disables a row whose schema broke', () => {
    const rows = synced([tool('forecast')]);
    const plan = planMcpToolSync(
      input([tool('forecast', { inputSchema: { type: 'string' } }), tool('alerts'), tool('alerts'), tool('')], rows),
    );
    expect(plan.rejected.map((r) => r.remoteName)).toEqual(['forecast', 'alerts', '']);
    expect(plan.rejected[0].problems[0]).toMatch(/inputSchema must have "type": "object"/);
    expect(plan.added).toEqual(['weather_alerts']);
    expect(plan.disabled).toEqual(['weather_forecast']);
  });

  it('shows a name that is no string as its JSON in the rejection, not as "[object Object]"', () => {
    const plan = planMcpToolSync(
      input([
        tool('alerts', { name: { en: 'alerts' } as unknown as string }),
        tool('x', { name: 7 as unknown as string }),
      ]),
    );
    expect(plan.rejected.map((r) => r.remoteName)).toEqual(['{"en":"alerts"}', '7']);
  });

  it('never touches a RETIRED row', () => {
    const rows = synced([tool('forecast')]).map((r) => ({ ...r, status: 'RETIRED' as const }));
    expect(planMcpToolSync(input([tool('forecast', { description: 'new' })], rows)).steps).toEqual([]);
    expect(planMcpToolSync(input([], rows)).steps).toEqual([]);
  });

  it('follows the annotations on change, unless an admin changed the side effect', () => {
    const rows = synced([tool('forecast', { annotations: { readOnlyHint: true } })]);
    const hinted = planMcpToolSync(input([tool('forecast', { annotations: { destructiveHint: true } })], rows));
    expect(hinted.steps[0]).toMatchObject({ changes: { sideEffect: 'HIGH_RISK' } });

    const adminSet = rows.map((r) => ({ ...r, sideEffect: 'SIDE_EFFECT' as const, version: 2 }));
    const kept = planMcpToolSync(input([tool('forecast', { annotations: { destructiveHint: true } })], adminSet));
    expect(kept.steps[0].kind).toBe('update');
    expect((kept.steps[0] as { changes: object }).changes).not.toHaveProperty('sideEffect');
  });
});

describe('namesWanted', () => {
  it('names only the listed tools that have no row yet', () => {
    const rows = synced([tool('forecast')]);
    expect(namesWanted(service, [tool('forecast'), tool('alerts'), tool('alerts')], rows)).toEqual(['weather_alerts']);
  });
});
