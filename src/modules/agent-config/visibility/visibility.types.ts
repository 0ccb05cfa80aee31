import type { Dependency, ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import type { DependencyHealth } from '@app/modules/tool-registry/mcp-service-health.registry';
import type { SideEffectPolicy, WebSearchMode } from '../agent-config.types';

/** The layers in the order they are applied; a hidden tool reports the first it failed. */
export const VISIBILITY_LAYERS = ['EXISTS', 'BOUND', 'ENABLED', 'PERMITTED', 'DEPENDENCIES', 'POLICY'] as const;
export type VisibilityLayer = (typeof VISIBILITY_LAYERS)[number];
/** The `layer` of a visible tool. */
export const EMITTED = 'EMITTED' as const;

/** Everything the layers may read about the caller, the agent and fresh state. Pure data. */
export interface VisibilityContext {
  tenantId: string;
  userPermissions: ReadonlySet<string>;
  /** The session's capabilities and the agent's provisions. */
  capabilities: ReadonlySet<Dependency>;
  /** Why this gateway instance cannot run a sandbox (SANDBOX then provides nothing here); null when it can. */
  sandboxUnavailable: string | null;
  boundToolIds: ReadonlySet<string>;
  /** Built-ins the agent is not bound to that a bound built-in brings: tool id → the bound built-in's name. */
  broughtBy: ReadonlyMap<string, string>;
  /** The agent's web-search mode, narrowed by the request. */
  webSearchMode: WebSearchMode;
  /** The tenant's platform capability `webSearch`. */
  tenantWebSearch: boolean;
  /** A search provider is configured on this gateway (WEB_SEARCH_URL). */
  webSearchAvailable: boolean;
  sideEffectPolicy: SideEffectPolicy;
  /** The tool a call by `name` reaches in this tenant (its own before a platform-wide one), if any. */
  toolNamed(name: string): ToolDescriptor | undefined;
  /** Health of a tool's MCP service, undefined when nothing is known (no evidence of trouble). */
  dependencyHealth(tool: ToolDescriptor): DependencyHealth | undefined;
}

/** A tool id the pipeline decides on; `tool` is null when the id is bound but gone from the registry. */
export interface VisibilityCandidate {
  toolId: string;
  tool: ToolDescriptor | null;
}

/** Why one layer hides a tool. */
export interface LayerVerdict {
  layer: VisibilityLayer;
  reason: string;
}

export interface VisibilityDecision {
  toolId: string;
  name: string | null;
  visible: boolean;
  layer: VisibilityLayer | typeof EMITTED;
  reason: string;
  /**
   * What a visible tool's spec changed and why, in every format: each node rewritten (or whose keywords were moved into
   * its description) by its JSON pointer, a description cut, why it is `strict: false` in a strict request.
   */
  warnings?: string[];
}

/** One layer: null when the tool passes it. */
export type VisibilityLayerCheck = (candidate: VisibilityCandidate, ctx: VisibilityContext) => LayerVerdict | null;
