import { Inject, Injectable } from '@nestjs/common';
import { ToolRegistryService } from '@app/modules/tool-registry/tool-registry.service';
import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { ConfigVersionService } from '@app/database/config-version.service';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { AgentConfigRepository } from '../agent-config.repository';
import { isImplicitlyBound, isPlatformWebSearch } from './visibility-layers';
import type { AgentEntity } from '../agent.entity';

/** One agent as the pipeline reads it. */
export interface AgentView {
  agent: AgentEntity;
  boundToolIds: ReadonlySet<string>;
  /** Bound ids in binding order (explain lists them first). */
  boundInOrder: readonly string[];
  /** Bound ids ordered by tool name (the order specs are emitted in), gone tools last. */
  boundByName: readonly string[];
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
  /** Emitted model specs (and their JSON) per format and tool (valid as long as this view). */
  specCache: Map<string, Map<ToolDescriptor, { value: object; json: string }>>;
}

/**
 * Caches what the visibility pipeline reads. Every admin write (on any instance) bumps the database's
 * config version; this cache compares it on each request (or every TOOL_SPECS_CACHE_CHECK_MS) and drops
 * everything when it moved. Loads are single-flight per tenant and per agent.
 */
@Injectable()
export class VisibilitySnapshotService {
  private loadedVersion = -1;
  private checkedAt = 0;
  private versionCheck: Promise<void> | null = null;
  private readonly tenants = new Map<string, Promise<TenantView>>();

  constructor(
    private readonly tools: ToolRegistryService,
    private readonly agents: AgentConfigRepository,
    private readonly configVersion: ConfigVersionService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async tenantView(tenantId: string): Promise<TenantView> {
    await this.ensureFresh();
    let view = this.tenants.get(tenantId);
    if (!view) {
      view = this.loadTenant(tenantId);
      this.tenants.set(tenantId, view);
      view.catch(() => this.tenants.delete(tenantId));
    }
    return view;
  }

  /** The agent as seen by `tenantId`, or null when it does not exist in that tenant. */
  async agentView(view: TenantView, agentId: string): Promise<AgentView | null> {
    let agent = view.agents.get(agentId);
    if (!agent) {
      agent = this.loadAgent(view, agentId);
      view.agents.set(agentId, agent);
      agent.catch(() => view.agents.delete(agentId));
    }
    return agent;
  }

  /** Drops every cached view now (tests and in-process writers that cannot wait for the version check). */
  invalidate(): void {
    this.tenants.clear();
    this.loadedVersion = -1;
    this.checkedAt = 0;
  }

  private async ensureFresh(): Promise<void> {
    const interval = this.config.toolSpecsCacheCheckMs;
    if (interval > 0 && Date.now() - this.checkedAt < interval && this.loadedVersion >= 0) return;
    // Concurrent requests share one version read.
    this.versionCheck ??= this.readVersion().finally(() => (this.versionCheck = null));
    await this.versionCheck;
  }

  private async readVersion(): Promise<void> {
    const version = await this.configVersion.read();
    this.checkedAt = Date.now();
    if (version !== this.loadedVersion) {
      this.tenants.clear();
      this.loadedVersion = version;
    }
  }

  private async loadTenant(tenantId: string): Promise<TenantView> {
    const [tools, capability] = await Promise.all([this.tools.findAllInScope(tenantId), this.agents.findCapability(tenantId)]);
    const byId = new Map(tools.map((t) => [t.id, t]));
    const byName = new Map<string, ToolDescriptor>();
    for (const t of tools) if (t.tenantId === null && !byName.has(t.name)) byName.set(t.name, t);
    for (const t of tools) if (t.tenantId !== null) byName.set(t.name, t);
    const implicitCandidates = tools.filter((t) => isPlatformWebSearch(t) || isImplicitlyBound(t));
    return { tenantId, tools: byId, toolsByName: byName, webSearch: capability?.webSearch ?? false, agents: new Map(), implicitCandidates, specCache: new Map() };
  }

  private async loadAgent(view: TenantView, agentId: string): Promise<AgentView | null> {
    const agent = await this.agents.findAgent(agentId);
    if (!agent || agent.tenantId !== view.tenantId) return null;
    const bound = await this.agents.boundToolIds(agentId);
    const nameOf = (id: string) => view.tools.get(id)?.name ?? '\uffff';
    const boundByName = [...bound].sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0));
    return { agent, boundToolIds: new Set(bound), boundInOrder: bound, boundByName };
  }
}
