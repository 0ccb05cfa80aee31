import {
  AGENT_PROVISIONS,
  READ_TOOL_RESULT_TOOL_NAME,
  type AgentProvision,
  type Dependency,
  type ToolRequirement,
  WEB_SEARCH_TOOL_NAME,
  type ToolDescriptor,
} from '@app/modules/tool-registry/tool-registry.types';
import type {
  LayerVerdict,
  VisibilityCandidate,
  VisibilityContext,
  VisibilityLayer,
  VisibilityLayerCheck,
} from './visibility.types';
import { PROVISION_HINTS } from './agent-provisions';

const hide = (layer: VisibilityLayer, reason: string): LayerVerdict => ({ layer, reason });

/** The platform web-search tool is governed by the capability policy, never by ordinary bindings. */
export function isPlatformWebSearch(tool: ToolDescriptor): boolean {
  return tool.source === 'BUILTIN' && tool.tenantId === null && tool.name === WEB_SEARCH_TOOL_NAME;
}

/** Platform built-ins every agent has without a binding: READ_TOOL_RESULT (truncated results point to it). */
export function isImplicitlyBound(tool: ToolDescriptor): boolean {
  return tool.source === 'BUILTIN' && tool.tenantId === null && tool.name === READ_TOOL_RESULT_TOOL_NAME;
}

/** EXISTS: the tool is in the registry and not retired. */
export const existsLayer: VisibilityLayerCheck = ({ toolId, tool }) => {
  if (!tool) return hide('EXISTS', `Tool ${toolId} is bound to the agent but no longer in the registry.`);
  if (tool.status === 'RETIRED')
    return hide('EXISTS', `Tool ${tool.name} was retired; revive it (PATCH status ACTIVE) or unbind it.`);
  return null;
};

/**
 * BOUND: the agent is bound to the tool, or to a built-in that brings it (CHECK_TASK_STATUS comes with the delegation
 * tools); web_search is decided by POLICY; READ_TOOL_RESULT is implicit.
 */
export const boundLayer: VisibilityLayerCheck = ({ toolId, tool }, ctx) => {
  if (tool && (isPlatformWebSearch(tool) || isImplicitlyBound(tool))) return null;
  if (!ctx.boundToolIds.has(toolId) && !ctx.broughtBy.has(toolId))
    return hide(
      'BOUND',
      `Tool ${tool?.name ?? toolId} is not bound to this agent; bind it with POST /api/v1/admin/agents/{id}/tools.`,
    );
  return null;
};

/** ENABLED: the admin switch is on and the version is still valid (not disabled by a sync). */
export const enabledLayer: VisibilityLayerCheck = ({ tool }) => {
  if (!tool) return null;
  if (!tool.enabled) return hide('ENABLED', `Tool ${tool.name} is disabled by an admin.`);
  if (tool.status !== 'ACTIVE')
    return hide(
      'ENABLED',
      `Tool ${tool.name} version ${tool.version} is no longer valid (status ${tool.status}, e.g. gone from its MCP server).`,
    );
  return null;
};

/**
 * PERMITTED: the tool belongs to the tenant or is platform-wide and not shadowed by the tenant's own tool of its name
 * (a @FeignTool deployed after a tenant took the name: calls by that name reach the tenant's tool, and providers
 * refuse two tools of one name), and the user holds every permission tag.
 */
export const permittedLayer: VisibilityLayerCheck = ({ tool }, ctx) => {
  if (!tool) return null;
  if (tool.tenantId !== null && tool.tenantId !== ctx.tenantId)
    return hide('PERMITTED', `Tool ${tool.name} belongs to another tenant.`);
  const holder = tool.tenantId === null ? ctx.toolNamed(tool.name) : undefined;
  if (holder && holder !== tool && holder.tenantId !== null)
    return hide(
      'PERMITTED',
      holder.status === 'RETIRED'
        ? `Platform tool ${tool.name} is shadowed by the tenant's own tool of that name (${holder.id}), which is retired but still holds the name: calls by that name reach it and are refused. Rename that tool (PATCH name) to free the name for the platform tool, or revive it (PATCH status ACTIVE).`
        : `Platform tool ${tool.name} is shadowed by the tenant's own tool of that name (${holder.id}), which calls by that name reach; rename one of them, or retire the platform tool.`,
    );
  for (const tag of tool.permissionTags) {
    if (ctx.userPermissions.has(tag)) continue;
    const missing = tool.permissionTags.filter((t) => !ctx.userPermissions.has(t));
    return hide('PERMITTED', `The user lacks permission tag(s) ${missing.join(', ')} required by ${tool.name}.`);
  }
  return null;
};

/**
 * DEPENDENCIES: the session provides the capabilities the tool requires (and this instance can run a sandbox when
 * one is required), the agent's configuration what a built-in needs (a bound skill, knowledge base, sub-agent), and
 * the tool's MCP service is not known to be down.
 */
export const dependenciesLayer: VisibilityLayerCheck = ({ tool }, ctx) => {
  if (!tool) return null;
  const missing = tool.requires.filter((r) => !ctx.capabilities.has(r));
  const missingCapabilities = missing.filter((r): r is ToolRequirement => !isAgentProvision(r));
  if (missingCapabilities.length > 0)
    return hide(
      'DEPENDENCIES',
      `Tool ${tool.name} requires ${missingCapabilities.join(', ')}, which this session does not provide.`,
    );
  if (missing.length > 0) {
    const hints = missing.map((r) => PROVISION_HINTS[r as AgentProvision]).join('; ');
    return hide('DEPENDENCIES', `Tool ${tool.name} needs ${missing.join(', ')} from the agent: ${hints}.`);
  }
  // A session created with SANDBOX on an instance that has one, served by an instance that has none.
  if (tool.requires.includes('SANDBOX') && ctx.sandboxUnavailable !== null)
    return hide(
      'DEPENDENCIES',
      `Tool ${tool.name} requires SANDBOX, which this gateway instance cannot provide: ${ctx.sandboxUnavailable}.`,
    );
  const health = ctx.dependencyHealth(tool);
  if (health && !health.healthy)
    return hide(
      'DEPENDENCIES',
      `The MCP service of ${tool.name} is unhealthy${health.reason ? `: ${health.reason}` : ''}.`,
    );
  return null;
};

function isAgentProvision(d: Dependency): d is AgentProvision {
  return (AGENT_PROVISIONS as readonly string[]).includes(d);
}

/** POLICY: web-search mode and tenant capability for web_search; the agent's side-effect policy for the rest. */
export const policyLayer: VisibilityLayerCheck = ({ tool }, ctx) => {
  if (!tool) return null;
  if (isPlatformWebSearch(tool)) {
    if (ctx.webSearchMode === 'DISABLED') return hide('POLICY', 'Web search is DISABLED for this agent or request.');
    if (!ctx.tenantWebSearch) return hide('POLICY', "The tenant's platform capability webSearch is off.");
    if (!ctx.webSearchAvailable)
      return hide('POLICY', 'No search provider is configured on this gateway (WEB_SEARCH_URL).');
    return null;
  }
  if (ctx.sideEffectPolicy === 'READ_ONLY' && tool.sideEffect !== 'READ_ONLY') {
    return hide('POLICY', `The agent's sideEffectPolicy READ_ONLY hides ${tool.name} (sideEffect ${tool.sideEffect}).`);
  }
  return null;
};

/** The layers in order. */
const VISIBILITY_PIPELINE: ReadonlyArray<VisibilityLayerCheck> = [
  existsLayer,
  boundLayer,
  enabledLayer,
  permittedLayer,
  dependenciesLayer,
  policyLayer,
];

export function firstFailingLayer(candidate: VisibilityCandidate, ctx: VisibilityContext): LayerVerdict | null {
  for (const check of VISIBILITY_PIPELINE) {
    const verdict = check(candidate, ctx);
    if (verdict) return verdict;
  }
  return null;
}
