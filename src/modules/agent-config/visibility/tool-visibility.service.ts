import { SandboxRunner } from '@app/modules/sandbox/sandbox-runner.service';
import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { McpServiceHealthRegistry } from '@app/modules/tool-registry/mcp-service-health.registry';
import type { Dependency, ToolDescriptor, ToolRequirement } from '@app/modules/tool-registry/tool-registry.types';
import { agentProvisions } from './agent-provisions';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { narrowWebSearchMode, type WebSearchMode } from '../agent-config.types';
import {
  emitToolSpec,
  forcedToolChoice,
  type EmittedToolSpec,
  type ForcedToolChoice,
  type ModelFormat,
  type SpecVariant,
} from '../formats/model-formats';
import { AgentView, TenantView, VisibilitySnapshotService } from './visibility-snapshot.service';
import type { AgentEntity } from '../agent.entity';
import { firstFailingLayer, isImplicitlyBound, isPlatformWebSearch } from './visibility-layers';
import { capToolCount } from './tool-count-cap';
import { EMITTED, VisibilityCandidate, VisibilityContext, VisibilityDecision } from './visibility.types';

/** The caller's side of a visibility question (from the runtime request or the session). */
export interface VisibilityRequest {
  tenantId: string;
  /** The agent asked about; required for tool specs and for calls (decideForCall hides every tool without one). */
  agentId?: string;
  permissions: readonly string[];
  capabilities?: readonly ToolRequirement[];
  webSearchMode?: WebSearchMode;
  /** See VisibilitySnapshotService.tenantView: the request's arrival (performance.now()); default now. */
  freshSince?: number;
}

export interface ToolSpecsResult {
  tools: object[];
  /** Under webSearchMode ALWAYS (after narrowing) with web_search offered: what makes the model call it. */
  toolChoice?: ForcedToolChoice;
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
    private readonly sandbox: SandboxRunner,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async toolSpecs(
    req: VisibilityRequest & { agentId: string },
    format: ModelFormat = 'openai',
    explain = false,
    strict = false,
  ): Promise<ToolSpecsResult> {
    const { view, tools, decisions, forced } = await this.visibleTools(req, format, explain);
    const variant = specVariant(format, strict);
    const specs = tools.map((t) => this.spec(view, variant, t).spec);
    const toolChoice = forced ? { toolChoice: forcedToolChoice(format, forced.name) } : {};
    return explain
      ? { tools: specs, ...toolChoice, decisions: withWarnings(decisions, view, variant) }
      : { tools: specs, ...toolChoice };
  }

  /**
   * The same answer as {@link toolSpecs}, already serialized: each tool's spec is serialized once per tool
   * version and the response is joined from those strings (a 1,000-tool answer is ~500 KB of JSON).
   */
  async toolSpecsJson(
    req: VisibilityRequest & { agentId: string },
    format: ModelFormat = 'openai',
    explain = false,
    strict = false,
  ): Promise<string> {
    const { view, tools, decisions, forced } = await this.visibleTools(req, format, explain);
    const variant = specVariant(format, strict);
    const specs = tools.map((t) => this.spec(view, variant, t).json).join(',');
    const toolChoice = forced ? `,"toolChoice":${JSON.stringify(forcedToolChoice(format, forced.name))}` : '';
    if (!explain) return `{"tools":[${specs}]${toolChoice}}`;
    return `{"tools":[${specs}]${toolChoice},"decisions":${JSON.stringify(withWarnings(decisions, view, variant))}}`;
  }

  /** The tools to emit (cut to what one request of `format` may carry) and, with `explain`, every decision. */
  private async visibleTools(
    req: VisibilityRequest & { agentId: string },
    format: ModelFormat,
    explain: boolean,
  ): Promise<VisibleTools> {
    const { view, agent, ctx } = await this.prepare(req);
    if (!agent)
      throw new DomainError(
        CommonErrorCode.NOT_FOUND,
        `No agent ${req.agentId} in your tenant; list agents with GET /api/v1/admin/agents.`,
      );
    if (!explain) {
      const visible = visibleByName(view, agent, ctx);
      const forced = forcedWebSearch(ctx, visible);
      return { view, ...capToolCount(format, visible, [], forced), forced };
    }
    const decisions: VisibilityDecision[] = [];
    const tools: ToolDescriptor[] = [];
    for (const candidate of this.candidates(view, agent)) {
      const decision = decide(candidate, ctx);
      if (decision.visible) tools.push(candidate.tool!);
      decisions.push(decision);
    }
    tools.sort(byName);
    const forced = forcedWebSearch(ctx, tools);
    const forcedDecision = forced && decisions.find((d) => d.toolId === forced.id);
    if (forcedDecision) forcedDecision.reason = `${forcedDecision.reason} ${ALWAYS_REASON}`;
    return { view, ...capToolCount(format, tools, decisions, forced), forced };
  }

  /**
   * Re-takes the decision for one tool by name at call time. Every call is made for an agent: without one
   * (whatever entry asks) nothing is bound, so the tool is hidden at BOUND; it is never treated as bound.
   */
  async decideForCall(req: VisibilityRequest & { agentId: string }, toolName: string): Promise<CallDecision> {
    const agentless = typeof req.agentId !== 'string' || req.agentId === '';
    const { view, agent, ctx } = await this.prepare(agentless ? { ...req, agentId: undefined } : req);
    const tool = view.toolsByName.get(toolName) ?? null;
    if (!tool) {
      return {
        tool: null,
        decision: {
          toolId: '',
          name: toolName,
          visible: false,
          layer: 'EXISTS',
          reason: `No tool named ${toolName} in the registry of this tenant.`,
        },
      };
    }
    const decision = agentless ? noAgentDecision(tool) : decide({ toolId: tool.id, tool }, ctx);
    return {
      tool,
      decision,
      agent: agent?.agent ?? null,
      webSearch: { mode: ctx.webSearchMode, tenantCapability: ctx.tenantWebSearch },
    };
  }

  private async prepare(
    req: VisibilityRequest,
  ): Promise<{ view: TenantView; agent: AgentView | null; ctx: VisibilityContext }> {
    const view = await this.snapshots.tenantView(req.tenantId, req.freshSince);
    const agent = req.agentId === undefined ? null : await this.snapshots.agentView(view, req.agentId);
    if (req.agentId !== undefined && !agent)
      throw new DomainError(
        CommonErrorCode.NOT_FOUND,
        `No agent ${req.agentId} in your tenant; list agents with GET /api/v1/admin/agents.`,
      );
    const ctx: VisibilityContext = {
      tenantId: req.tenantId,
      userPermissions: new Set(req.permissions),
      capabilities: new Set<Dependency>([...(req.capabilities ?? []), ...(agent ? agentProvisions(agent.agent) : [])]),
      sandboxUnavailable: this.sandbox.available() ? null : this.sandbox.unavailableReason(),
      boundToolIds: agent?.boundToolIds ?? new Set(),
      broughtBy: agent?.broughtBy ?? new Map(),
      webSearchMode: agent ? narrowWebSearchMode(agent.agent.webSearchMode, req.webSearchMode) : 'DISABLED',
      tenantWebSearch: view.webSearch,
      webSearchAvailable: this.config.webSearch.url !== '',
      sideEffectPolicy: agent?.agent.sideEffectPolicy ?? 'ALLOW',
      toolNamed: (name) => view.toolsByName.get(name),
      dependencyHealth: (tool) =>
        tool.serviceType.startsWith('MCP') ? this.health.statusOf(tool.mcpServiceId ?? tool.endpoint) : undefined,
    };
    return { view, agent, ctx };
  }

  /** For explain: the bound tools (in binding order), then every other candidate of the tenant's scope. */
  private *candidates(view: TenantView, agent: AgentView): Iterable<VisibilityCandidate> {
    for (const toolId of agent.boundInOrder) yield { toolId, tool: view.tools.get(toolId) ?? null };
    for (const tool of view.tools.values()) {
      if (agent.boundToolIds.has(tool.id)) continue;
      if (isPlatformWebSearch(tool) || isImplicitlyBound(tool) || tool.status !== 'RETIRED')
        yield { toolId: tool.id, tool };
    }
  }

  private spec(view: TenantView, variant: SpecVariant, tool: ToolDescriptor): EmittedToolSpec {
    return cachedSpec(view, variant, tool);
  }
}

function specVariant(format: ModelFormat, strict: boolean): SpecVariant {
  return strict && format === 'openai' ? 'openai-strict' : format;
}

/** The spec of one tool version, emitted once per tenant view and variant. */
function cachedSpec(view: TenantView, variant: SpecVariant, tool: ToolDescriptor): EmittedToolSpec {
  let byTool = view.specCache.get(variant);
  if (!byTool) view.specCache.set(variant, (byTool = new Map<ToolDescriptor, EmittedToolSpec>()));
  let spec = byTool.get(tool);
  if (!spec) byTool.set(tool, (spec = emitToolSpec(variant, tool)));
  return spec;
}

/**
 * A visible tool whose spec changes its schema says what and why in its decision (the emitter's warnings): each node
 * the format's rewrite drops or reshapes (or whose keywords it moves into the description), by its JSON pointer, and
 * why it is `strict: false` in a strict request (or for the Responses API).
 */
function withWarnings(decisions: VisibilityDecision[], view: TenantView, variant: SpecVariant): VisibilityDecision[] {
  return decisions.map((decision) => {
    const tool = decision.visible ? view.tools.get(decision.toolId) : undefined;
    const warnings = tool ? cachedSpec(view, variant, tool).warnings : [];
    return warnings.length > 0 ? { ...decision, warnings } : decision;
  });
}

interface VisibleTools {
  view: TenantView;
  tools: ToolDescriptor[];
  decisions: VisibilityDecision[];
  /** The tool the model must call (web_search under ALWAYS), if any. */
  forced: ToolDescriptor | undefined;
}

const ALWAYS_REASON =
  "webSearchMode ALWAYS: the answer's toolChoice makes the model call it (AUTO leaves that to the model).";

/**
 * AUTO and ALWAYS both offer web_search (when the tenant capability and a provider allow it); ALWAYS also
 * makes the model search: the answer carries a toolChoice naming it. The mode here is already narrowed by the
 * request, so a runtime that sends AUTO gets the offer without the forcing.
 */
function forcedWebSearch(ctx: VisibilityContext, visible: readonly ToolDescriptor[]): ToolDescriptor | undefined {
  return ctx.webSearchMode === 'ALWAYS' ? visible.find(isPlatformWebSearch) : undefined;
}

const byName = (a: ToolDescriptor, b: ToolDescriptor) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The visible tools, by name, without building a decision per candidate (the path of every model turn). */
function visibleByName(view: TenantView, agent: AgentView, ctx: VisibilityContext): ToolDescriptor[] {
  const tools: ToolDescriptor[] = [];
  for (const toolId of agent.boundByName) {
    const tool = view.tools.get(toolId) ?? null;
    if (tool && firstFailingLayer({ toolId, tool }, ctx) === null) tools.push(tool);
  }
  let added = false;
  for (const tool of view.implicitCandidates) {
    if (agent.boundToolIds.has(tool.id) || firstFailingLayer({ toolId: tool.id, tool }, ctx) !== null) continue;
    tools.push(tool);
    added = true;
  }
  return added ? tools.sort(byName) : tools;
}

/** A call made for no agent: nothing is bound to it (the registry alone never makes a tool callable). */
function noAgentDecision(tool: ToolDescriptor): VisibilityDecision {
  return {
    toolId: tool.id,
    name: tool.name,
    visible: false,
    layer: 'BOUND',
    reason: `No agent was named for this call, so ${tool.name} is bound to none; name the agent the call is made for (agentId).`,
  };
}

function decide(candidate: VisibilityCandidate, ctx: VisibilityContext): VisibilityDecision {
  const verdict = firstFailingLayer(candidate, ctx);
  const name = candidate.tool?.name ?? null;
  if (verdict) return { toolId: candidate.toolId, name, visible: false, layer: verdict.layer, reason: verdict.reason };
  const via = ctx.broughtBy.get(candidate.toolId);
  const reason = via
    ? `Passed every layer; not bound itself, it comes with ${via}, which is bound to this agent.`
    : 'Passed every layer.';
  return { toolId: candidate.toolId, name, visible: true, layer: EMITTED, reason };
}
