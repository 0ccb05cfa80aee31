import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { toolFixture } from '@test/support/tool-fixture';
import {
  boundLayer,
  dependenciesLayer,
  enabledLayer,
  existsLayer,
  firstFailingLayer,
  permittedLayer,
  policyLayer,
} from './visibility-layers';
import type { VisibilityContext } from './visibility.types';

const tool = (overrides: Partial<ToolDescriptor> = {}): ToolDescriptor =>
  toolFixture({ id: 't1', tenantId: 'acme', name: 'lookup', endpoint: 'https://x/y', ...overrides });

const webSearch = tool({ id: 'ws', name: 'web_search', tenantId: null, source: 'BUILTIN', serviceType: 'LOCAL' });

function ctx(overrides: Partial<VisibilityContext> = {}): VisibilityContext {
  return {
    tenantId: 'acme',
    userPermissions: new Set(['a', 'b']),
    capabilities: new Set(),
    sandboxUnavailable: null,
    boundToolIds: new Set(['t1']),
    broughtBy: new Map(),
    webSearchMode: 'AUTO',
    tenantWebSearch: true,
    webSearchAvailable: true,
    sideEffectPolicy: 'ALLOW',
    toolNamed: () => undefined,
    dependencyHealth: () => undefined,
    ...overrides,
  };
}

describe('existsLayer', () => {
  it('hides a bound id that is gone from the registry', () => {
    expect(existsLayer({ toolId: 'gone', tool: null }, ctx())?.layer).toBe('EXISTS');
  });
  it('hides a retired tool', () => {
    expect(existsLayer({ toolId: 't1', tool: tool({ status: 'RETIRED' }) }, ctx())?.layer).toBe('EXISTS');
  });
  it('passes an active or disabled tool (ENABLED decides those)', () => {
    expect(existsLayer({ toolId: 't1', tool: tool({ status: 'DISABLED' }) }, ctx())).toBeNull();
  });
});

describe('boundLayer', () => {
  it('hides a tool the agent is not bound to', () => {
    expect(boundLayer({ toolId: 't1', tool: tool() }, ctx({ boundToolIds: new Set() }))?.layer).toBe('BOUND');
  });
  it('passes a bound tool', () => {
    expect(boundLayer({ toolId: 't1', tool: tool() }, ctx())).toBeNull();
  });
  it('passes a tool a bound built-in brings, though not bound itself', () => {
    const brought = ctx({ boundToolIds: new Set(), broughtBy: new Map([['t1', 'SUB_AGENT_CALL']]) });
    expect(boundLayer({ toolId: 't1', tool: tool() }, brought)).toBeNull();
  });
  it('leaves the platform web_search to the POLICY layer', () => {
    expect(boundLayer({ toolId: 'ws', tool: webSearch }, ctx({ boundToolIds: new Set() }))).toBeNull();
  });
  it('does not exempt a tenant tool that happens to be named web_search', () => {
    const impostor = tool({ id: 'x', name: 'web_search', source: 'DB' });
    expect(boundLayer({ toolId: 'x', tool: impostor }, ctx({ boundToolIds: new Set() }))?.layer).toBe('BOUND');
  });
});

describe('enabledLayer', () => {
  it('hides a tool an admin disabled', () => {
    expect(enabledLayer({ toolId: 't1', tool: tool({ enabled: false }) }, ctx())?.reason).toMatch(
      /disabled by an admin/,
    );
  });
  it('hides a tool whose version is no longer valid (DISABLED by a sync)', () => {
    expect(enabledLayer({ toolId: 't1', tool: tool({ status: 'DISABLED' }) }, ctx())?.reason).toMatch(
      /no longer valid/,
    );
  });
  it('passes an enabled active tool', () => {
    expect(enabledLayer({ toolId: 't1', tool: tool() }, ctx())).toBeNull();
  });
});

describe('permittedLayer', () => {
  it('requires every permission tag', () => {
    expect(permittedLayer({ toolId: 't1', tool: tool({ permissionTags: ['a', 'c'] }) }, ctx())?.reason).toContain('c');
    expect(permittedLayer({ toolId: 't1', tool: tool({ permissionTags: ['a', 'b'] }) }, ctx())).toBeNull();
  });
  it("hides another tenant's tool", () => {
    expect(permittedLayer({ toolId: 't1', tool: tool({ tenantId: 'globex' }) }, ctx())?.layer).toBe('PERMITTED');
  });
  it('passes a platform-wide tool', () => {
    expect(permittedLayer({ toolId: 't1', tool: tool({ tenantId: null }) }, ctx())).toBeNull();
  });
});

describe('dependenciesLayer', () => {
  it('hides a tool whose requirements the session lacks, naming them', () => {
    const v = dependenciesLayer(
      { toolId: 't1', tool: tool({ requires: ['SANDBOX', 'FILE_ROOM'] }) },
      ctx({ capabilities: new Set(['SANDBOX']) }),
    );
    expect(v?.reason).toContain('FILE_ROOM');
    expect(v?.reason).not.toContain('SANDBOX,');
  });
  it('hides a built-in whose agent provision is missing, saying how to provide it', () => {
    const skillCall = tool({ requires: ['SKILL'] });
    const v = dependenciesLayer({ toolId: 't1', tool: skillCall }, ctx());
    expect(v).toEqual({ layer: 'DEPENDENCIES', reason: expect.stringContaining('/skills') });
    expect(dependenciesLayer({ toolId: 't1', tool: skillCall }, ctx({ capabilities: new Set(['SKILL']) }))).toBeNull();
  });
  it('names a missing session capability before a missing agent provision', () => {
    const v = dependenciesLayer({ toolId: 't1', tool: tool({ requires: ['KNOWLEDGE_BASE', 'SANDBOX'] }) }, ctx());
    expect(v?.reason).toContain('SANDBOX, which this session does not provide');
  });
  it('hides a SANDBOX tool on an instance that cannot run a sandbox, even for a session that has SANDBOX', () => {
    const runCommand = tool({ requires: ['SANDBOX'] });
    const withSandbox = { capabilities: new Set(['SANDBOX'] as const) };
    expect(dependenciesLayer({ toolId: 't1', tool: runCommand }, ctx(withSandbox))).toBeNull();
    const v = dependenciesLayer(
      { toolId: 't1', tool: runCommand },
      ctx({ ...withSandbox, sandboxUnavailable: 'bubblewrap (bwrap) is not installed' }),
    );
    expect(v).toEqual({
      layer: 'DEPENDENCIES',
      reason:
        'Tool lookup requires SANDBOX, which this gateway instance cannot provide: bubblewrap (bwrap) is not installed.',
    });
    // Tools that need no sandbox are not affected.
    expect(dependenciesLayer({ toolId: 't1', tool: tool() }, ctx({ sandboxUnavailable: 'no bwrap' }))).toBeNull();
  });
  it('hides a tool whose MCP service is known unhealthy', () => {
    const v = dependenciesLayer(
      { toolId: 't1', tool: tool() },
      ctx({ dependencyHealth: () => ({ healthy: false, reason: 'down', checkedAt: 0 }) }),
    );
    expect(v).toEqual({ layer: 'DEPENDENCIES', reason: expect.stringContaining('down') });
  });
  it('passes when health is unknown or good', () => {
    expect(dependenciesLayer({ toolId: 't1', tool: tool() }, ctx())).toBeNull();
    expect(
      dependenciesLayer(
        { toolId: 't1', tool: tool() },
        ctx({ dependencyHealth: () => ({ healthy: true, checkedAt: 0 }) }),
      ),
    ).toBeNull();
  });
});

describe('policyLayer', () => {
  it('hides web_search when the mode is DISABLED or the tenant capability is off', () => {
    expect(policyLayer({ toolId: 'ws', tool: webSearch }, ctx({ webSearchMode: 'DISABLED' }))?.layer).toBe('POLICY');
    expect(policyLayer({ toolId: 'ws', tool: webSearch }, ctx({ tenantWebSearch: false }))?.layer).toBe('POLICY');
    expect(policyLayer({ toolId: 'ws', tool: webSearch }, ctx({ webSearchMode: 'ALWAYS' }))).toBeNull();
  });
  it('hides web_search when no provider is configured', () => {
    expect(policyLayer({ toolId: 'ws', tool: webSearch }, ctx({ webSearchAvailable: false }))?.reason).toContain(
      'WEB_SEARCH_URL',
    );
  });
  it('hides every non-READ_ONLY tool under the READ_ONLY policy', () => {
    for (const sideEffect of ['IDEMPOTENT', 'SIDE_EFFECT', 'HIGH_RISK'] as const) {
      expect(
        policyLayer({ toolId: 't1', tool: tool({ sideEffect }) }, ctx({ sideEffectPolicy: 'READ_ONLY' }))?.layer,
      ).toBe('POLICY');
    }
    expect(policyLayer({ toolId: 't1', tool: tool() }, ctx({ sideEffectPolicy: 'READ_ONLY' }))).toBeNull();
  });
  it('lets side-effecting tools through APPROVE_SIDE_EFFECTS (approval happens at call time)', () => {
    expect(
      policyLayer(
        { toolId: 't1', tool: tool({ sideEffect: 'SIDE_EFFECT' }) },
        ctx({ sideEffectPolicy: 'APPROVE_SIDE_EFFECTS' }),
      ),
    ).toBeNull();
  });
});

describe('firstFailingLayer', () => {
  it('reports the first layer in order when several fail', () => {
    const t = tool({ enabled: false, permissionTags: ['zzz'], requires: ['SANDBOX'], sideEffect: 'SIDE_EFFECT' });
    expect(firstFailingLayer({ toolId: 't1', tool: t }, ctx({ sideEffectPolicy: 'READ_ONLY' }))?.layer).toBe('ENABLED');
    expect(firstFailingLayer({ toolId: 't1', tool: t }, ctx({ boundToolIds: new Set() }))?.layer).toBe('BOUND');
    expect(firstFailingLayer({ toolId: 't1', tool: { ...t, enabled: true } }, ctx())?.layer).toBe('PERMITTED');
  });
  it('returns null for a tool that passes every layer', () => {
    expect(firstFailingLayer({ toolId: 't1', tool: tool() }, ctx())).toBeNull();
  });
});
