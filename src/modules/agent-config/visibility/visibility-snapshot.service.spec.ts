import type { GatewayConfig } from '@app/config/gateway-config';
import type { ConfigVersionService } from '@app/database/config-version.service';
import type { ToolRegistryService } from '@app/modules/tool-registry/tool-registry.service';
import type { AgentConfigRepository } from '../agent-config.repository';
import { BuiltinToolCatalog } from '@app/modules/tool-registry/builtin-tool.catalog';
import { MAX_CACHED_TENANT_VIEWS, VisibilitySnapshotService } from './visibility-snapshot.service';

/** A version read the test answers by hand. */
interface PendingRead {
  resolve(version: string): void;
}

describe('VisibilitySnapshotService freshness', () => {
  let reads: PendingRead[];
  let loads: number;
  let snapshots: VisibilitySnapshotService;

  const settle = async (version = '1:1') => {
    for (const read of reads.splice(0)) read.resolve(version);
    await new Promise((r) => setImmediate(r));
  };

  beforeEach(() => {
    reads = [];
    loads = 0;
    const versions = {
      read: () => new Promise<string>((resolve) => reads.push({ resolve })),
      localBumpCount: () => 0,
    } as unknown as ConfigVersionService;
    const tools = { findAllInScope: async () => (loads++, []) } as unknown as ToolRegistryService;
    const agents = { findCapability: async () => null } as unknown as AgentConfigRepository;
    snapshots = new VisibilitySnapshotService(tools, agents, versions, new BuiltinToolCatalog(), {
      toolSpecsCacheCheckMs: 0,
    } as GatewayConfig);
  });

  it('reads the version for every request by default', async () => {
    const first = snapshots.tenantView('acme');
    await settle();
    await first;
    const second = snapshots.tenantView('acme');
    expect(reads).toHaveLength(1);
    await settle();
    await second;
    expect(loads).toBe(1);
  });

  it('serves every call of a request from the version read at its arrival', async () => {
    const arrival = performance.now();
    const warm = snapshots.tenantView('acme', arrival);
    await settle();
    await warm;
    await snapshots.tenantView('acme', arrival);
    await snapshots.tenantView('acme', arrival);
    expect(reads).toHaveLength(0);
  });

  it('does not let a request share a read that started before it arrived, but shares one that started after', async () => {
    const early = snapshots.tenantView('acme');
    expect(reads).toHaveLength(1);
    const arrival = performance.now();
    const late = snapshots.tenantView('acme', arrival);
    expect(reads).toHaveLength(2);
    const later = snapshots.tenantView('acme', arrival);
    expect(reads).toHaveLength(2);
    await settle();
    await Promise.all([early, late, later]);
  });

  it('reloads the view when the version moved', async () => {
    const first = snapshots.tenantView('acme');
    await settle('1:1');
    await first;
    const second = snapshots.tenantView('acme');
    await settle('1:2');
    await second;
    expect(loads).toBe(2);
  });
});

describe('VisibilitySnapshotService tenant views', () => {
  let loads: string[];
  let snapshots: VisibilitySnapshotService;

  beforeEach(() => {
    loads = [];
    const versions = { read: async () => '1:1', localBumpCount: () => 0 } as unknown as ConfigVersionService;
    const tools = {
      findAllInScope: async (tenantId: string) => (loads.push(tenantId), []),
    } as unknown as ToolRegistryService;
    const agents = { findCapability: async () => null } as unknown as AgentConfigRepository;
    snapshots = new VisibilitySnapshotService(tools, agents, versions, new BuiltinToolCatalog(), {
      toolSpecsCacheCheckMs: 0,
    } as GatewayConfig);
  });

  it(`keeps the views of the ${MAX_CACHED_TENANT_VIEWS} tenants served last, not of every tenant ever served`, async () => {
    for (let i = 0; i < MAX_CACHED_TENANT_VIEWS + 200; i++) await snapshots.tenantView(`tenant-${i}`);
    expect(snapshots['tenants'].size).toBe(MAX_CACHED_TENANT_VIEWS);
  });

  it('reloads a view let go, and keeps serving the views in use from memory', async () => {
    await snapshots.tenantView('busy');
    for (let i = 0; i < MAX_CACHED_TENANT_VIEWS + 200; i++) {
      await snapshots.tenantView(`tenant-${i}`);
      if (i % 100 === 0) await snapshots.tenantView('busy');
    }
    await snapshots.tenantView('busy');
    await snapshots.tenantView('tenant-0');
    expect(loads.filter((t) => t === 'busy')).toHaveLength(1);
    expect(loads.filter((t) => t === 'tenant-0')).toHaveLength(2);
  });
});
