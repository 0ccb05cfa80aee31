import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { McpServiceHealthRegistry } from '@app/modules/tool-registry/mcp-service-health.registry';
import type { ToolDescriptor, ToolRequirement } from '@app/modules/tool-registry/tool-registry.types';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { narrowWebSearchMode, type WebSearchMode } from '../agent-config.types';
import { emitToolSpec, type ModelFormat } from '../formats/model-formats';
import { AgentView, TenantView, VisibilitySnapshotService } from './visibility-snapshot.service';
import type { AgentEntity } from '../agent.entity';
import { firstFailingLayer, isImplicitlyBound, isPlatformWebSearch } from './visibility-layers';
import { EMITTED, VisibilityCandidate, VisibilityContext, VisibilityDecision } from './visibility.types';

/** The caller's side of a visibility question (from the runtime request or the session). */
export interface VisibilityRequest {
  tenantId: string;
  /** Without an agent (executeDirect without agentId) the BOUND and POLICY layers have nothing to check. */
  agentId?: string;
  permissions: readonly string[];
  capabilities?: readonly ToolRequirement[];
  webSearchMode?: WebSearchMode;
}

export interface ToolSpecsResult {
  tools: object[];
  decisions?: VisibilityDecision[];
}

export interface CallDecision {
  tool: ToolDescriptor | null;
  decision: VisibilityDecision;
  /** The agent the call is made for (null without one). */
  agent?: AgentEntity | null;
  /** Web-search policy narrowed for this call (the web-search dispatcher re-checks it). */
  webSearch?: { mode: WebSearchMode; tenantCapability: boolean };
}

/**
 * The one visibility decision: used to emit tool specs and again, against fresh state, before every call.
 */
@Injectable()
export class ToolVisibilityService {
  constructor(
    private readonly snapshots: VisibilitySnapshotService,
    private readonly health: McpServiceHealthRegistry,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async toolSpecs(req: VisibilityRequest & { agentId: string }, format: ModelFormat = 'openai', explain = false): Promise<ToolSpecsResult> {
    const { view, tools, decisions } = await this.visibleTools(req, explain);
    const specs = tools.map((t) => this.spec(view, format, t).value);
    return explain ? { tools: specs, decisions } : { tools: specs };
  }

  /**
   * The same answer as {@link toolSpecs}, already serialized: each tool's spec is serialized once per tool
   * version and the response is joined from those strings (a 1,000-tool answer is ~500 KB of JSON).
   */
  async toolSpecsJson(req: VisibilityRequest & { agentId: string }, format: ModelFormat = 'openai', explain = false): Promise<string> {
    const { view, tools, decisions } = await this.visibleTools(req, explain);
    const specs = tools.map((t) => this.spec(view, format, t).json).join(',');
    return explain ? `{"tools":[${specs}],"decisions":${JSON.stringify(decisions)}}` : `{"tools":[${specs}]}`;
  }

  private async visibleTools(req: VisibilityRequest & { agentId: string }, explain: boolean): Promise<{ view: TenantView; tools: ToolDescriptor[]; decisions: VisibilityDecision[] }> {
    const { view, agent, ctx } = await this.prepare(req);
    if (!agent) throw new DomainError(CommonErrorCode.NOT_FOUND, `No agent ${req.agentId} in your tenant.`);
    const decisions: VisibilityDecision[] = [];
    const tools: ToolDescriptor[] = [];
    for (const candidate of this.candidates(view, agent, explain)) {
      const decision = decide(candidate, ctx);
      if (decision.visible) tools.push(candidate.tool!);
      if (explain) decisions.push(decision);
    }
    tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { view, tools, decisions };
  }

  /** Re-takes the decision for one tool by name at call time. */
  async decideForCall(req: VisibilityRequest, toolName: string): Promise<CallDecision> {
    const { view, agent, ctx } = await this.prepare(req);
    const tool = view.toolsByName.get(toolName) ?? null;
    if (!tool) {
      return { tool: null, decision: { toolId: '', name: toolName, visible: false, layer: 'EXISTS', reason: `No tool named ${toolName} in the registry of this tenant.` } };
    }
    const callCtx = agent ? ctx : { ...ctx, boundToolIds: new Set([tool.id]) };
    return { tool, decision: decide({ toolId: tool.id, tool }, callCtx), agent: agent?.agent ?? null, webSearch: { mode: ctx.webSearchMode, tenantCapability: ctx.tenantWebSearch } };
  }

  private async prepare(req: VisibilityRequest): Promise<{ view: TenantView; agent: AgentView | null; ctx: VisibilityContext }> {
    const view = await this.snapshots.tenantView(req.tenantId);
    const agent = req.agentId === undefined ? null : await this.snapshots.agentView(view, req.agentId);
    if (req.agentId !== undefined && !agent) throw new DomainError(CommonErrorCode.NOT_FOUND, `No agent ${req.agentId} in your tenant.`);
    const ctx: VisibilityContext = {
      tenantId: req.tenantId,
      userPermissions: new Set(req.permissions),
      capabilities: new Set(req.capabilities ?? []),
      boundToolIds: agent?.boundToolIds ?? new Set(),
      webSearchMode: agent ? narrowWebSearchMode(agent.agent.webSearchMode, req.webSearchMode) : 'DISABLED',
      tenantWebSearch: view.webSearch,
      webSearchAvailable: this.config.webSearch.url !== '',
      sideEffectPolicy: agent?.agent.sideEffectPolicy ?? 'ALLOW',
      dependencyHealth: (tool) => (tool.serviceType.startsWith('MCP') ? this.health.statusOf(tool.mcpServiceId ?? tool.endpoint) : undefined),
    };
    return { view, agent, ctx };
  }

  /** Bound tools (in binding order), then with `explain` the unbound ones of the tenant's scope; web_search always. */
  private *candidates(view: TenantView, agent: AgentView, explain: boolean): Iterable<VisibilityCandidate> {
    const seen = new Set<string>();
    for (const toolId of agent.boundInOrder) {
      seen.add(toolId);
      yield { toolId, tool: view.tools.get(toolId) ?? null };
    }
    for (const tool of view.tools.values()) {
      if (seen.has(tool.id)) continue;
      if (isPlatformWebSearch(tool) || isImplicitlyBound(tool) || (explain && tool.status !== 'RETIRED')) yield { toolId: tool.id, tool };
    }
  }

  private spec(view: TenantView, format: ModelFormat, tool: ToolDescriptor): { value: object; json: string } {
    const key = `${format}:${tool.id}@${tool.version}`;
    let spec = view.specCache.get(key);
    if (!spec) {
      const value = emitToolSpec(format, tool);
      spec = { value, json: JSON.stringify(value) };
      view.specCache.set(key, spec);
    }
    return spec;
  }
}

function decide(candidate: VisibilityCandidate, ctx: VisibilityContext): VisibilityDecision {
  const verdict = firstFailingLayer(candidate, ctx);
  const name = candidate.tool?.name ?? null;
  if (verdict) return { toolId: candidate.toolId, name, visible: false, layer: verdict.layer, reason: verdict.reason };
  return { toolId: candidate.toolId, name, visible: true, layer: EMITTED, reason: 'Passed every layer.' };
}
