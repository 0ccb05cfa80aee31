/** Enums and the descriptor shape of a registered tool (the contract's field names and values). */
export const SERVICE_TYPES = ['LOCAL', 'HTTP', 'FEIGN', 'MCP_REMOTE', 'MCP_NACOS'] as const;
export type ServiceType = (typeof SERVICE_TYPES)[number];

export const SIDE_EFFECT_LEVELS = ['READ_ONLY', 'IDEMPOTENT', 'SIDE_EFFECT', 'HIGH_RISK'] as const;
export type SideEffectLevel = (typeof SIDE_EFFECT_LEVELS)[number];

export const TOOL_STATUSES = ['ACTIVE', 'DISABLED', 'RETIRED'] as const;
export type ToolStatus = (typeof TOOL_STATUSES)[number];

export const TOOL_SOURCES = ['BUILTIN', 'DB', 'FEIGN', 'MCP'] as const;
export type ToolSource = (typeof TOOL_SOURCES)[number];

export const TOOL_REQUIREMENTS = ['SANDBOX', 'FILE_ROOM', 'MCP'] as const;
export type ToolRequirement = (typeof TOOL_REQUIREMENTS)[number];

/**
 * What a built-in needs from the agent's configuration rather than from the session: a bound skill, a bound
 * knowledge base, a sub-agent to delegate to. Only built-in rows carry them (admins set TOOL_REQUIREMENTS).
 */
export const AGENT_PROVISIONS = ['SKILL', 'KNOWLEDGE_BASE', 'SUB_AGENT'] as const;
export type AgentProvision = (typeof AGENT_PROVISIONS)[number];

/** Anything the DEPENDENCIES layer checks: a session capability or an agent provision. */
export type Dependency = ToolRequirement | AgentProvision;

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export const REJECT_POLICIES = ['RETURN_ERROR', 'ABORT_SESSION'] as const;
export type RejectPolicy = (typeof REJECT_POLICIES)[number];

/** v2: a letter or `_` first (as Gemini requires), then letters, digits, `_` or `-`; 64 at most. For every source. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;
export const TENANT_ID_PATTERN = /^[a-zA-Z0-9_.-]{1,64}$/;

/** The name of the platform web-search tool, present in the registry from the first start. */
export const WEB_SEARCH_TOOL_NAME = 'web_search';
/** Session built-in: pages through a truncated result (every agent has it: truncation notes point to it). */
export const READ_TOOL_RESULT_TOOL_NAME = 'READ_TOOL_RESULT';
/** Session built-in: replaces the session's todo list (bound like any tool). */
export const UPDATE_TODO_LIST_TOOL_NAME = 'UPDATE_TODO_LIST';

export type JsonSchema = Record<string, unknown>;

export interface ToolHitlPolicy {
  approvalText?: string;
  rejectPolicy?: RejectPolicy;
}

export interface ToolResultPolicy {
  maxInlineChars?: number;
  redactFields?: string[];
}

/** A registered tool as every module reads it (never the entity). */
export interface ToolDescriptor {
  id: string;
  tenantId: string | null;
  name: string;
  description: string;
  parameters: JsonSchema;
  serviceType: ServiceType;
  endpoint: string;
  httpMethod: HttpMethod | null;
  /**
   * HTTP and MCP tools: header templates; `${secret:NAME}` is filled at call time from the tool's own scope
   * (platform-wide: TOOL_SECRETS; a tenant's: that tenant's secrets). MCP tools of a service carry its headers.
   */
  headers: Record<string, string> | null;
  timeoutMs: number | null;
  permissionTags: string[];
  tags: string[];
  sideEffect: SideEffectLevel;
  remoteName: string | null;
  requires: Dependency[];
  enabled: boolean;
  status: ToolStatus;
  source: ToolSource;
  version: number;
  hitl: ToolHitlPolicy | null;
  result: ToolResultPolicy | null;
  /** MCP tools: the mcp service they were synced from (health is tracked per service). */
  mcpServiceId: string | null;
  createdAt: number;
  updatedAt: number;
}
