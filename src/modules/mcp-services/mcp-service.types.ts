/** How an MCP service is found: a Nacos service (healthy instances) or one fixed URL. */
export const MCP_SERVICE_KINDS = ['STATIC', 'NACOS'] as const;
export type McpServiceKind = (typeof MCP_SERVICE_KINDS)[number];

/** What the gateway last saw of a service: UP (an instance answered tools/list), DOWN, or not checked yet. */
export const MCP_SERVICE_HEALTHS = ['UP', 'DOWN', 'UNKNOWN'] as const;
export type McpServiceHealth = (typeof MCP_SERVICE_HEALTHS)[number];

/** Transports an admin may pin for a service (instance metadata `mcp.transport` still wins for NACOS). */
export const MCP_SERVICE_TRANSPORTS = ['streamable-http', 'sse'] as const;
export type McpServiceTransport = (typeof MCP_SERVICE_TRANSPORTS)[number];

/**
 * Who chose a NACOS service's namespace. Nacos is read with the platform's credentials, so a namespace its tenant's
 * admin chose must stay among that tenant's NACOS_TENANT_NAMESPACES at every lookup; one the platform admin assigned
 * is the platform's decision and stays.
 */
export const NACOS_NAMESPACE_CHOOSERS = ['TENANT', 'PLATFORM'] as const;
export type NacosNamespaceChooser = (typeof NACOS_NAMESPACE_CHOOSERS)[number];

/** Names of MCP services: also the default tool-name prefix, so kept to tool-name characters plus `.`. */
export const MCP_SERVICE_NAME_PATTERN = /^[a-zA-Z0-9_.-]{1,64}$/;
/** A tool-name prefix: tool-name characters only, short enough to leave room for the tool's own name. */
export const TOOL_PREFIX_PATTERN = /^[a-zA-Z0-9_-]{0,32}$/;
/** Nacos group of a service registered without one. */
export const DEFAULT_NACOS_GROUP = 'DEFAULT_GROUP';

/** A registered MCP service as the sync, the executor and the admin API read it (never the entity). */
export interface McpServiceRecord {
  id: string;
  name: string;
  kind: McpServiceKind;
  /** STATIC: the MCP endpoint URL. */
  url: string | null;
  /** NACOS: service name, group and namespace ('' or null: the gateway's NACOS_NAMESPACE). */
  serviceName: string | null;
  groupName: string | null;
  namespaceId: string | null;
  /** NACOS: who chose `namespaceId`; null for STATIC, and for services registered before it was recorded (kept as the platform's). */
  namespaceChosenBy: NacosNamespaceChooser | null;
  transport: McpServiceTransport | null;
  /** NACOS: endpoint path of instances whose metadata names none (default MCP_DEFAULT_PATH). */
  path: string | null;
  /** null: the service's tools are platform-wide. */
  tenantId: string | null;
  /** Header templates sent on every MCP request; `${secret:NAME}` resolves from the service's own scope. */
  headers: Record<string, string> | null;
  toolPrefix: string;
  health: McpServiceHealth;
  healthReason: string | null;
  lastSyncAt: number | null;
  lastListHash: string | null;
  lastSyncResult: McpSyncReport | null;
  createdAt: number;
  updatedAt: number;
}

/** A listed tool that could not take its name: another tool (another source or service) holds it. */
export interface McpToolCollision {
  /** The tool's name on the MCP server. */
  remoteName: string;
  /** The registry name it would have had. */
  name: string;
  existingToolId: string;
  existingSource: string;
  existingMcpServiceId: string | null;
  existingTenantId: string | null;
}

/** A listed tool whose schema a model format rewrote with a loss. */
export interface McpToolLossyRewrite {
  remoteName: string;
  rewrites: string[];
}

/** A listed tool that was skipped because its definition is unusable. */
export interface McpToolRejection {
  remoteName: string;
  problems: string[];
}

/**
 * What one sync of a service did, as `POST /admin/mcp-services/{id}/sync` answers it: counts per outcome,
 * the names behind them, collisions and rejected tools. `skipped` means another gateway instance held the
 * service's sync lease, so this one did nothing (that sync covers the same upstream state).
 */
export interface McpSyncReport {
  added: number;
  updated: number;
  disabled: number;
  unchanged: number;
  collisions: McpToolCollision[];
  rejected: McpToolRejection[];
  skipped: boolean;
  /** What started it. */
  trigger: McpSyncTrigger;
  /** Why it was skipped (the lease holder). */
  skippedReason?: string;
  /** Registry names per outcome. */
  tools: { added: string[]; updated: string[]; disabled: string[] };
  /** The MCP endpoint that answered tools/list. */
  listedFrom?: string;
  /** Listed tools whose schema some model format had to rewrite with a loss (see the tool's checklist). */
  lossyRewrites?: McpToolLossyRewrite[];
  /** sha256 of the canonical tools/list answer. */
  listHash?: string;
  /** When the sync finished (ISO-8601 UTC). */
  finishedAt: string;
  durationMs: number;
  /** Set (with zero counts) when no instance answered; the admin endpoint turns it into an error. */
  error?: string;
}

/** What started a sync (logs and tests). */
export type McpSyncTrigger = 'create' | 'admin' | 'instances-changed' | 'tools-list-changed' | 'repair' | 'startup';
