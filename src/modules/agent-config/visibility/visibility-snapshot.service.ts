import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { ToolRegistryService } from '@app/modules/tool-registry/tool-registry.service';
import { BuiltinToolCatalog } from '@app/modules/tool-registry/builtin-tool.catalog';
import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { ConfigVersionService } from '@app/database/config-version.service';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { AgentConfigRepository } from '../agent-config.repository';
import { isImplicitlyBound, isPlatformWebSearch } from './visibility-layers';
import type { AgentEntity } from '../agent.entity';
import type { EmittedToolSpec, SpecVariant } from '../formats/model-formats';

/** One agent as the pipeline reads it. */
export interface AgentView {
  agent: AgentEntity;
  boundToolIds: ReadonlySet<string>;
  /** Bound ids in binding order (explain lists them first). */
  boundInOrder: readonly string[];
  /**
   * Bound ids and the ids of the built-ins they bring ({@link broughtBy}), ordered by tool name (the order specs are
   * emitted in), gone tools last.
   */
  boundByName: readonly string[];
  /** Built-ins the agent is not bound to that a bound built-in brings (BuiltinToolDefinition.comesWith): id → its name. */
  broughtBy: ReadonlyMap<string, string>;
}

/** What one tenant's requests read: its tools and platform-wide ones, its capability, its agents (lazily). */
export interface TenantView {
  tenantId: string;
  tools: ReadonlyMap<string, ToolDescriptor>;
  /** Tool by name as the tenant means it: its own first, else the platform-wide one. */
  toolsByName: ReadonlyMap<string, ToolDescriptor>;
  webSearch: boolean;
  agents: Map<string, Promise<AgentView | null>>;
  /** Platform tools that are candidates for every agent without a binding (web_search, READ_TOOL_RESULT). */
  implicitCandidates: readonly ToolDescriptor[];
  /** Emitted specs (and their JSON) per variant (a format, or openai-strict) and tool, valid as long as this view. */
  specCache: Map<SpecVariant, Map<ToolDescriptor, EmittedToolSpec>>;
}

/**
 * Tenants whose view stays in memory, the least recently served let go first (reloaded, one read of the tools, when
 * the tenant comes back): each view copies every platform tool besides the tenant's own, with their emitted specs, and
 * tenants come and go over the weeks a gateway runs.
 */
export const MAX_CACHED_TENANT_VIEWS = 1_000;

/**
 * Caches what the visibility pipeline reads, per tenant (the {@link MAX_CACHED_TENANT_VIEWS} served last). Every admin write (on any instance) bumps a config
 * version in the database (its tenant's, or the global one for platform-wide changes); a tenant's view is
 * reloaded when either moved. Loads are single-flight per tenant and per agent.
 */
interface TenantEntry {
  /** The `<global>:<tenant>` config version the view was loaded at. */
  version: string;
  /** When (performance.now()) the latest version read that confirmed this view started. */
  checkedAt: number;
  /** This process's bump count when that read started (the interval shortcut never hides this instance's writes). */
  checkedBumps: number;
  view: Promise<TenantView>;
}

/** A version read in flight, shared by the requests that arrived before it started. */
export interface VersionRead {
  /** performance.now() when the read started. */
  startedAt: number;
  /** ConfigVersionService.localBumpCount() when it started. */
  bumps: number;
  version: Promise<string>;
}

@Injectable()
export class VisibilitySnapshotService {
  private readonly tenants = new LRUCache<string, TenantEntry>({ max: MAX_CACHED_TENANT_VIEWS });
  private readonly versionReads = new Map<string, VersionRead>();

  constructor(
    private readonly tools: ToolRegistryService,
    private readonly agents: AgentConfigRepository,
    private readonly configVersion: ConfigVersionService,
    private readonly catalog: BuiltinToolCatalog,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /**
   * The tenant's view, reloaded when its config version (global or tenant stamp) moved. Fresh means: confirmed
   * by a version read that started at or after `freshSince` (a performance.now() instant; default: now), so it
   * reflects every configuration write acknowledged before then. A request passes its arrival time, so the
   * version it read at arrival serves all its calls, and reads of concurrent requests are shared when they
   * started late enough. TOOL_SPECS_CACHE_CHECK_MS > 0 accepts a view confirmed that recently instead, unless
   * this instance wrote configuration since (its own writes show at once; other instances' within the interval).
   * `ownRead`: a version read the caller already made in another statement (act reads it with the session), used
   * instead of a read of its own; it must have started at or after `freshSince`.
   */
  async tenantView(
    tenantId: string,
    freshSince: number = performance.now(),
    ownRead?: VersionRead,
  ): Promise<TenantView> {
    const interval = this.config.toolSpecsCacheCheckMs;
    const cached = this.tenants.get(tenantId);
    if (
      cached &&
      (cached.checkedAt >= freshSince ||
        (interval > 0 &&
          performance.now() - cached.checkedAt < interval &&
          cached.checkedBumps === this.configVersion.localBumpCount()))
    ) {
      return cached.view;
    }
    const read = ownRead && ownRead.startedAt >= freshSince ? ownRead : this.readVersion(tenantId, freshSince);
    const version = await read.version;
    const current = this.tenants.get(tenantId);
    if (current && current.version === version) {
      if (read.startedAt >= current.checkedAt) {
        current.checkedAt = read.startedAt;
        current.checkedBumps = read.bumps;
      }
      return current.view;
    }
    const entry: TenantEntry = {
      version,
      checkedAt: read.startedAt,
      checkedBumps: read.bumps,
      view: this.loadTenant(tenantId),
    };
    this.tenants.set(tenantId, entry);
    entry.view.catch(() => this.tenants.peek(tenantId) === entry && this.tenants.delete(tenantId));
    return entry.view;
  }

  /**
   * The agent as seen by `tenantId`, or null when it does not exist in that tenant. Only agents found stay cached: a
   * miss is not kept, so requests naming made-up agent ids cannot grow the view.
   */
  async agentView(view: TenantView, agentId: string): Promise<AgentView | null> {
    let agent = view.agents.get(agentId);
    if (!agent) {
      const loading = this.loadAgent(view, agentId);
      const forget = () => view.agents.get(agentId) === loading && view.agents.delete(agentId);
      loading.then((found) => found ?? forget(), forget);
      view.agents.set(agentId, loading);
      agent = loading;
    }
    return agent;
  }

  /** Drops every cached view now (tests and benchmarks that measure a cold load). */
  invalidate(): void {
    this.tenants.clear();
  }

  /** A version read that started at or after `freshSince`: the one in flight, or a new one. */
  private readVersion(tenantId: string, freshSince: number): VersionRead {
    const inFlight = this.versionReads.get(tenantId);
    if (inFlight && inFlight.startedAt >= freshSince) return inFlight;
    const read: VersionRead = {
      startedAt: performance.now(),
      bumps: this.configVersion.localBumpCount(),
      version: this.configVersion.read(tenantId).finally(() => {
        if (this.versionReads.get(tenantId) === read) this.versionReads.delete(tenantId);
      }),
    };
    this.versionReads.set(tenantId, read);
    return read;
  }

  private async loadTenant(tenantId: string): Promise<TenantView> {
    const [tools, capability] = await Promise.all([
      this.tools.findAllInScope(tenantId),
      this.agents.findCapability(tenantId),
    ]);
    const byId = new Map(tools.map((t) => [t.id, t]));
    const byName = new Map<string, ToolDescriptor>();
    for (const t of tools) if (t.tenantId === null && !byName.has(t.name)) byName.set(t.name, t);
    for (const t of tools) if (t.tenantId !== null) byName.set(t.name, t);
    const implicitCandidates = tools.filter((t) => isPlatformWebSearch(t) || isImplicitlyBound(t));
    return {
      tenantId,
      tools: byId,
      toolsByName: byName,
      webSearch: capability?.webSearch ?? false,
      agents: new Map(),
      implicitCandidates,
      specCache: new Map(),
    };
  }

  private async loadAgent(view: TenantView, agentId: string): Promise<AgentView | null> {
    const agent = await this.agents.findAgent(agentId);
    if (!agent || agent.tenantId !== view.tenantId) return null;
    const bound = await this.agents.boundToolIds(agentId);
    const boundToolIds = new Set(bound);
    const broughtBy = this.broughtBy(view, boundToolIds);
    const nameOf = (id: string) => view.tools.get(id)?.name ?? '\uffff';
    const boundByName = [...bound, ...broughtBy.keys()].sort((a, b) =>
      nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0,
    );
    return { agent, boundToolIds, boundInOrder: bound, boundByName, broughtBy };
  }

  /** The platform built-ins, not bound themselves, that a bound platform built-in brings: id → the bound one's name. */
  private broughtBy(view: TenantView, boundToolIds: ReadonlySet<string>): Map<string, string> {
    const boundBuiltins = new Set<string>();
    for (const id of boundToolIds) {
      const tool = view.tools.get(id);
      if (tool?.source === 'BUILTIN' && tool.tenantId === null) boundBuiltins.add(tool.name);
    }
    const brought = new Map<string, string>();
    if (boundBuiltins.size === 0) return brought;
    for (const tool of view.tools.values()) {
      if (boundToolIds.has(tool.id)) continue;
      const via = this.catalog.comesWith(tool).find((name) => boundBuiltins.has(name));
      if (via) brought.set(tool.id, via);
    }
    return brought;
  }
}
