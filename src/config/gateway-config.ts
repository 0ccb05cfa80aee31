import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { GATEWAY_SETTINGS, SettingDefinition } from './gateway-config.definitions';
import { OutboundAllowList } from '@app/modules/executors/outbound/outbound-allow-list';
import { trustedProxyProblem } from './trusted-proxies';

/** The typed, validated configuration. Built once at boot by {@link loadGatewayConfig}. */
export interface GatewayConfig {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  host: string;
  databaseUrl: string;
  sqliteSynchronous: 'NORMAL' | 'FULL';
  adminApiKey: string | undefined;
  toolDefaultTimeoutMs: number;
  toolMaxAttempts: number;
  toolRetryBaseDelayMs: number;
  toolRetryMaxAfterMs: number;
  outboundAllowHosts: string[];
  /** OUTBOUND_PLATFORM_ONLY_HOSTS: targets a tenant's calls never reach (see OutboundHttpAgent.scope). */
  outboundPlatformOnlyHosts: string[];
  journalLeaseMs: number;
  /** CLIENT_IDLE_TIMEOUT_MS: how long a client may stall a request body or a file download (0: no limit). */
  clientIdleTimeoutMs: number;
  /** TRANSFERS_MAX_PER_KEY: file transfers one API key may have open at once on this instance (0: no limit). */
  transfersMaxPerKey: number;
  /** SHUTDOWN_GRACE_MS: how long a shutdown (by signal or app.close()) waits for the requests in flight. */
  shutdownGraceMs: number;
  /** Dead-owner sweep period; 0 = off. */
  journalSweepIntervalMs: number;
  instanceId: string;
  resultStoreMaxBytes: number;
  resultDefaultMaxInlineChars: number;
  toolSpecsCacheCheckMs: number;
  /** Retention of closed sessions and their rows (RETENTION_*), and of artifacts (ARTIFACTS_RETENTION_DAYS; 0 = kept). */
  retention: { days: number; artifactDays: number; idleCloseDays: number; enabled: boolean; intervalMs: number };
  nacos: {
    serverAddr: string;
    namespace: string;
    /** NACOS_TENANT_NAMESPACES: the namespaces each tenant's NACOS services may name (first: the default). */
    tenantNamespaces: ReadonlyMap<string, readonly string[]>;
    username: string;
    password: string;
  };
  mcp: {
    healthIntervalMs: number;
    repairEnabled: boolean;
    syncDebounceMs: number;
    defaultPath: string;
    defaultTransport: 'streamable-http' | 'sse';
    /** MCP_TOOLS_CALL_CLIENT: McpStreamableExchange or the SDK Client for `tools/call` on streamable HTTP. */
    toolsCallClient: 'exchange' | 'sdk';
    /** MCP_SESSION_IDLE_MS: a pooled session unused this long is closed (0: never). */
    sessionIdleMs: number;
  };
  webSearch: { url: string; apiKey: string };
  /** Budget of one search of an HTTP knowledge base (KNOWLEDGE_SEARCH_TIMEOUT_MS). */
  knowledgeSearchTimeoutMs: number;
  /** How often unfinished knowledge-base deletions are finished (KNOWLEDGE_DELETION_INTERVAL_MS); 0: never. */
  knowledgeDeletionIntervalMs: number;
  toolSecrets: ReadonlyMap<string, string>;
  /** SECRETS_KEY as bytes (AES-256-GCM key of tenant secrets); null when unset. */
  secretsKey: Buffer | null;
  demoToolsEnabled: boolean;
  logLevel: 'error' | 'warn' | 'log' | 'debug' | 'verbose';
  /** `auto` is resolved at start-up (see the logging bootstrap). */
  logFormat: 'auto' | 'json' | 'pretty';
  /** Bearer token GET /metrics requires; empty: none. */
  metricsToken: string;
  faultInjection: string;
  /** The gateway's own agent loop: runs, their queue and the model calls. */
  agentLoop: {
    runLeaseMs: number;
    taskWorkers: number;
    /** RUNS_MAX_RUNNING_PER_TENANT (0: no cap). */
    maxRunningPerTenant: number;
    pollIntervalMs: number;
    modelCallTimeoutMs: number;
    modelMaxRetries: number;
    /** Longest Retry-After of a model provider a run waits for (MODEL_RETRY_MAX_AFTER_MS); a longer one fails the request. */
    modelRetryMaxAfterMs: number;
    /** Bytes of one model answer (MODEL_MAX_ANSWER_BYTES). */
    modelMaxAnswerBytes: number;
    subagentMaxDepth: number;
    subagentMaxOpenTasks: number;
  };
  /** RUN_COMMAND's sandbox (SANDBOX_*); driver undefined: bwrap when installed, else none. */
  sandbox: {
    driver: 'bwrap' | 'none' | undefined;
    timeoutMs: number;
    memoryMb: number;
    maxProcesses: number;
    maxFileMb: number;
    outputMaxBytes: number;
  };
  /** Skill packages: limits of one release, and where releases are unpacked for the sandbox. */
  skills: { maxFiles: number; maxBytes: number; maxReleases: number; cacheDir: string };
  /** Session workspaces and artifacts (WORKSPACE_*). */
  workspace: {
    root: string;
    maxBytes: number;
    maxFiles: number;
    maxFileBytes: number;
    artifactsMaxBytes: number;
    artifactsMaxCount: number;
  };
  eventsStreamPollMs: number;
  /** EVENTS_STREAM_MAX_PER_TENANT: open event streams per tenant on this instance. */
  eventsStreamMaxPerTenant: number;
  /** RATE_LIMIT_PER_MINUTE: requests per API key and minute on this instance; 0 for none. */
  rateLimitPerMinute: number;
  /** AUTH_FAILURES_PER_MINUTE: failed authentications per client address and minute on this instance; 0 for none. */
  authFailuresPerMinute: number;
  /** TRUST_PROXY: the reverse proxies whose X-Forwarded-For names the client's address (Fastify's `trustProxy`). */
  trustedProxies: string[];
}

export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');

/** Start-up stops with this error; its message names each bad variable and how to fix it. */
export class GatewayConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(
      `Invalid configuration:\n  - ${problems.join('\n  - ')}\nSee .env.example for every variable and its default.`,
    );
    this.name = 'GatewayConfigError';
  }
}

type Raw = Record<string, string | number | boolean | string[] | undefined>;

function parseOne(def: SettingDefinition, raw: string | undefined, problems: string[]): Raw[string] {
  const value = raw === undefined ? def.defaultValue : raw.trim();
  if (value === undefined) return undefined;
  const shown = def.secret ? '(hidden)' : JSON.stringify(value);
  const kind = def.kind;
  switch (kind.type) {
    case 'int': {
      const n = Number(value);
      if (!/^-?\d+$/.test(value) || n < kind.min || n > kind.max) {
        problems.push(`${def.env}=${shown} must be a whole number from ${kind.min} to ${kind.max}`);
        return undefined;
      }
      return n;
    }
    case 'bool':
      if (!['true', 'false', '1', '0'].includes(value.toLowerCase())) {
        problems.push(`${def.env}=${shown} must be true or false`);
        return undefined;
      }
      return value === 'true' || value === '1';
    case 'enum':
      if (!kind.values.includes(value)) {
        problems.push(`${def.env}=${shown} must be one of ${kind.values.join(', ')}`);
        return undefined;
      }
      return value;
    case 'list':
      return value
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s.length > 0);
    case 'string':
      if (kind.pattern && value !== '' && !kind.pattern.test(value)) {
        problems.push(`${def.env}=${shown} is not valid: ${kind.hint ?? `must match ${kind.pattern}`}`);
        return undefined;
      }
      if (kind.pattern && value === '' && def.defaultValue !== '') {
        problems.push(`${def.env} is empty: ${kind.hint ?? 'set a value or unset it'}`);
        return undefined;
      }
      return value;
  }
}

function parseSecrets(pairs: string[], problems: string[]): Map<string, string> {
  const secrets = new Map<string, string>();
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const name = eq > 0 ? pair.slice(0, eq) : '';
    if (!/^[A-Za-z0-9_]+$/.test(name)) {
      problems.push('TOOL_SECRETS must be NAME=value pairs separated by commas (NAME: letters, digits, _)');
      continue;
    }
    secrets.set(name, pair.slice(eq + 1));
  }
  return secrets;
}

/** The first invalid entry of a host list (see {@link OutboundAllowList}), said as the guard would at start-up. */
function hostListProblem(entries: string[], setting: string): string | undefined {
  try {
    new OutboundAllowList(entries, setting);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Reads and validates the environment; throws {@link GatewayConfigError} listing every problem at once. */
export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const problems: string[] = [];
  const raw: Raw = {};
  for (const def of GATEWAY_SETTINGS as readonly SettingDefinition[]) {
    raw[def.env] = parseOne(def, env[def.env], problems);
  }
  const secrets = parseSecrets((raw.TOOL_SECRETS as string[]) ?? [], problems);
  for (const setting of ['OUTBOUND_ALLOW_HOSTS', 'OUTBOUND_PLATFORM_ONLY_HOSTS']) {
    const problem = hostListProblem((raw[setting] as string[] | undefined) ?? [], setting);
    if (problem) problems.push(problem);
  }
  for (const entry of (raw.TRUST_PROXY as string[] | undefined) ?? []) {
    const problem = trustedProxyProblem(entry);
    if (problem) problems.push(problem);
  }
  if (raw.NODE_ENV === 'production' && raw.GATEWAY_FAULT_INJECTION) {
    problems.push('GATEWAY_FAULT_INJECTION is a test-only switch: unset it in production');
  }
  if (problems.length > 0) throw new GatewayConfigError(problems);

  return {
    nodeEnv: raw.NODE_ENV as GatewayConfig['nodeEnv'],
    port: raw.PORT as number,
    host: raw.HOST as string,
    databaseUrl: raw.DATABASE_URL as string,
    sqliteSynchronous: raw.SQLITE_SYNCHRONOUS as GatewayConfig['sqliteSynchronous'],
    adminApiKey: raw.ADMIN_API_KEY as string | undefined,
    toolDefaultTimeoutMs: raw.TOOL_DEFAULT_TIMEOUT_MS as number,
    toolMaxAttempts: raw.TOOL_MAX_ATTEMPTS as number,
    toolRetryBaseDelayMs: raw.TOOL_RETRY_BASE_DELAY_MS as number,
    toolRetryMaxAfterMs: raw.TOOL_RETRY_MAX_AFTER_MS as number,
    outboundAllowHosts: raw.OUTBOUND_ALLOW_HOSTS as string[],
    outboundPlatformOnlyHosts: raw.OUTBOUND_PLATFORM_ONLY_HOSTS as string[],
    journalLeaseMs: raw.JOURNAL_LEASE_MS as number,
    shutdownGraceMs: raw.SHUTDOWN_GRACE_MS as number,
    clientIdleTimeoutMs: raw.CLIENT_IDLE_TIMEOUT_MS as number,
    transfersMaxPerKey: raw.TRANSFERS_MAX_PER_KEY as number,
    journalSweepIntervalMs: raw.JOURNAL_SWEEP_INTERVAL_MS as number,
    instanceId:
      (raw.GATEWAY_INSTANCE_ID as string | undefined) ??
      `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    resultStoreMaxBytes: raw.RESULT_STORE_MAX_BYTES as number,
    resultDefaultMaxInlineChars: raw.RESULT_DEFAULT_MAX_INLINE_CHARS as number,
    toolSpecsCacheCheckMs: raw.TOOL_SPECS_CACHE_CHECK_MS as number,
    retention: {
      days: raw.RETENTION_DAYS as number,
      artifactDays: raw.ARTIFACTS_RETENTION_DAYS as number,
      idleCloseDays: raw.SESSION_IDLE_CLOSE_DAYS as number,
      enabled: raw.RETENTION_ENABLED as boolean,
      intervalMs: raw.RETENTION_INTERVAL_MS as number,
    },
    nacos: {
      serverAddr: raw.NACOS_SERVER_ADDR as string,
      namespace: raw.NACOS_NAMESPACE as string,
      tenantNamespaces: tenantNamespacesOf(raw.NACOS_TENANT_NAMESPACES as string),
      username: raw.NACOS_USERNAME as string,
      password: raw.NACOS_PASSWORD as string,
    },
    mcp: {
      healthIntervalMs: raw.MCP_HEALTH_INTERVAL_MS as number,
      repairEnabled: raw.MCP_REPAIR_ENABLED as boolean,
      syncDebounceMs: raw.MCP_SYNC_DEBOUNCE_MS as number,
      defaultPath: raw.MCP_DEFAULT_PATH as string,
      defaultTransport: raw.MCP_DEFAULT_TRANSPORT as GatewayConfig['mcp']['defaultTransport'],
      toolsCallClient: raw.MCP_TOOLS_CALL_CLIENT as GatewayConfig['mcp']['toolsCallClient'],
      sessionIdleMs: raw.MCP_SESSION_IDLE_MS as number,
    },
    webSearch: { url: raw.WEB_SEARCH_URL as string, apiKey: raw.WEB_SEARCH_API_KEY as string },
    knowledgeSearchTimeoutMs: raw.KNOWLEDGE_SEARCH_TIMEOUT_MS as number,
    knowledgeDeletionIntervalMs: raw.KNOWLEDGE_DELETION_INTERVAL_MS as number,
    toolSecrets: secrets,
    secretsKey: raw.SECRETS_KEY ? Buffer.from(raw.SECRETS_KEY as string, 'hex') : null,
    // The demo tools are for a first look; production gets them only when asked for explicitly.
    demoToolsEnabled:
      raw.NODE_ENV === 'production' && env.DEMO_TOOLS_ENABLED === undefined
        ? false
        : (raw.DEMO_TOOLS_ENABLED as boolean),
    logLevel: raw.LOG_LEVEL as GatewayConfig['logLevel'],
    logFormat: raw.LOG_FORMAT as GatewayConfig['logFormat'],
    metricsToken: raw.METRICS_TOKEN as string,
    faultInjection: raw.GATEWAY_FAULT_INJECTION as string,
    agentLoop: {
      runLeaseMs: (raw.RUN_LEASE_MS as number) || (raw.JOURNAL_LEASE_MS as number),
      taskWorkers: raw.TASK_WORKERS as number,
      maxRunningPerTenant: raw.RUNS_MAX_RUNNING_PER_TENANT as number,
      pollIntervalMs: raw.RUN_POLL_INTERVAL_MS as number,
      modelCallTimeoutMs: raw.MODEL_CALL_TIMEOUT_MS as number,
      modelMaxRetries: raw.MODEL_MAX_RETRIES as number,
      modelRetryMaxAfterMs: raw.MODEL_RETRY_MAX_AFTER_MS as number,
      modelMaxAnswerBytes: raw.MODEL_MAX_ANSWER_BYTES as number,
      subagentMaxDepth: raw.SUBAGENT_MAX_DEPTH as number,
      subagentMaxOpenTasks: raw.SUBAGENT_MAX_OPEN_TASKS as number,
    },
    sandbox: {
      driver: raw.SANDBOX_DRIVER as GatewayConfig['sandbox']['driver'],
      timeoutMs: raw.SANDBOX_TIMEOUT_MS as number,
      memoryMb: raw.SANDBOX_MEMORY_MB as number,
      maxProcesses: raw.SANDBOX_MAX_PROCESSES as number,
      maxFileMb: raw.SANDBOX_MAX_FILE_MB as number,
      outputMaxBytes: raw.SANDBOX_OUTPUT_MAX_BYTES as number,
    },
    skills: {
      maxFiles: raw.SKILL_MAX_FILES as number,
      maxBytes: raw.SKILL_MAX_BYTES as number,
      maxReleases: raw.SKILL_MAX_RELEASES as number,
      cacheDir: raw.SKILL_CACHE_DIR as string,
    },
    workspace: {
      root: raw.WORKSPACE_ROOT as string,
      maxBytes: raw.WORKSPACE_MAX_BYTES as number,
      maxFiles: raw.WORKSPACE_MAX_FILES as number,
      maxFileBytes: raw.WORKSPACE_MAX_FILE_BYTES as number,
      artifactsMaxBytes: raw.ARTIFACTS_MAX_BYTES as number,
      artifactsMaxCount: raw.ARTIFACTS_MAX_COUNT as number,
    },
    eventsStreamPollMs: raw.EVENTS_STREAM_POLL_MS as number,
    eventsStreamMaxPerTenant: raw.EVENTS_STREAM_MAX_PER_TENANT as number,
    rateLimitPerMinute: raw.RATE_LIMIT_PER_MINUTE as number,
    authFailuresPerMinute: raw.AUTH_FAILURES_PER_MINUTE as number,
    trustedProxies: raw.TRUST_PROXY as string[],
  };
}

/** `acme=ns1|ns2;globex=ns3` (validated by its definition's pattern) as tenant → namespaces. */
function tenantNamespacesOf(value: string): ReadonlyMap<string, readonly string[]> {
  const map = new Map<string, string[]>();
  for (const entry of value.split(';').filter(Boolean)) {
    const [tenant, namespaces] = entry.split('=');
    map.set(tenant, [...(map.get(tenant) ?? []), ...namespaces.split('|')]);
  }
  return map;
}
