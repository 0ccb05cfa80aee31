/**
 * Every environment variable the gateway reads, with its default, its validation and its meaning.
 * `.env.example` documents the same list; a unit test keeps the two in step.
 */
export type SettingKind =
  | { type: 'int'; min: number; max: number }
  | { type: 'string'; pattern?: RegExp; hint?: string }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'bool' }
  | { type: 'list' };

export interface SettingDefinition {
  env: string;
  kind: SettingKind;
  /** Default as the raw string would be written in the environment; undefined = unset. */
  defaultValue?: string;
  /** Secrets are never printed: not in logs, not in error messages. */
  secret?: boolean;
  description: string;
}

export const GATEWAY_SETTINGS = [
  {
    env: 'NODE_ENV',
    kind: { type: 'enum', values: ['development', 'production', 'test'] },
    defaultValue: 'development',
    description: 'development | production | test. Production refuses to start without ADMIN_API_KEY.',
  },
  {
    env: 'PORT',
    kind: { type: 'int', min: 0, max: 65535 },
    defaultValue: '3000',
    description: 'HTTP port of the API (0 picks a free port).',
  },
  { env: 'HOST', kind: { type: 'string' }, defaultValue: '0.0.0.0', description: 'Address the HTTP server binds to.' },
  {
    env: 'DATABASE_URL',
    kind: {
      type: 'string',
      pattern: /^(sqlite:.+|mysql:\/\/.+)$/,
      hint: 'use sqlite:<file> or mysql://user:password@host:port/db',
    },
    defaultValue: 'sqlite:data/gateway.sqlite',
    secret: true,
    description: 'sqlite:<file> (embedded default, created on first start) or mysql://user:password@host:port/db.',
  },
  {
    env: 'SQLITE_SYNCHRONOUS',
    kind: { type: 'enum', values: ['NORMAL', 'FULL'] },
    defaultValue: 'NORMAL',
    description:
      'SQLite durability. NORMAL (WAL) survives a killed process but not a power cut; FULL also survives a power cut and costs about 0.2 ms more per journal write.',
  },
  {
    env: 'ADMIN_API_KEY',
    kind: { type: 'string', pattern: /^.{16,}$/, hint: 'use at least 16 characters, e.g. `openssl rand -hex 24`' },
    secret: true,
    description:
      'The platform admin key (role admin, all tenants). Required in production; elsewhere a key is generated and printed once.',
  },
  {
    env: 'TOOL_DEFAULT_TIMEOUT_MS',
    kind: { type: 'int', min: 1, max: 3_600_000 },
    defaultValue: '60000',
    description: 'Outer budget of one tool call, retries included. A tool with a positive timeoutMs replaces it.',
  },
  {
    env: 'TOOL_MAX_ATTEMPTS',
    kind: { type: 'int', min: 1, max: 10 },
    defaultValue: '3',
    description: 'Attempts in all for one tool call, inside the outer budget.',
  },
  {
    env: 'TOOL_RETRY_BASE_DELAY_MS',
    kind: { type: 'int', min: 0, max: 60_000 },
    defaultValue: '100',
    description: 'First retry delay; doubles per attempt, with full jitter.',
  },
  {
    env: 'TOOL_RETRY_MAX_AFTER_MS',
    kind: { type: 'int', min: 0, max: 600_000 },
    defaultValue: '5000',
    description: 'Longest Retry-After (429/503) the gateway honours; a longer one ends the call.',
  },
  {
    env: 'OUTBOUND_ALLOW_HOSTS',
    kind: { type: 'list' },
    defaultValue: '',
    description:
      'Comma-separated hosts, IPs or CIDRs that HTTP tools, MCP URLs and web search may reach although they are loopback, private or link-local; `host:port`, `10.0.0.0/8:5432` or `[::1]:8080` allows that port only.',
  },
  {
    env: 'OUTBOUND_PLATFORM_ONLY_HOSTS',
    kind: { type: 'list' },
    defaultValue: '',
    description:
      "Comma-separated hosts, IPs or CIDRs that only the platform's own tools, MCP services, model providers and knowledge bases may call: a tenant's are refused (OUTBOUND_BLOCKED) even when OUTBOUND_ALLOW_HOSTS lists the target; `host:port` reserves that port only.",
  },
  {
    env: 'JOURNAL_LEASE_MS',
    kind: { type: 'int', min: 500, max: 3_600_000 },
    defaultValue: '10000',
    description: "How long a STARTED journal entry's owner counts as alive without renewing its lease.",
  },
  {
    env: 'CLIENT_IDLE_TIMEOUT_MS',
    kind: { type: 'int', min: 0, max: 3_600_000 },
    defaultValue: '60000',
    description:
      "How long a client may send nothing while its request's body is being received, or read nothing of a file download (a workspace file, an artifact), before its connection is closed (as nginx's client_body_timeout and send_timeout): a stalled upload or download no longer holds a connection and an open file for ever. A slow client that keeps going is not cut. 0: no limit.",
  },
  {
    env: 'TRANSFERS_MAX_PER_KEY',
    kind: { type: 'int', min: 0, max: 100_000 },
    defaultValue: '8',
    description:
      'File transfers (workspace file uploads and downloads, artifact downloads, skill uploads) one API key may have open at once on one instance; one more is a 429 TOO_MANY_REQUESTS with Retry-After, before its body is read. A transfer holds its place until its answer is sent or its connection closes. 0: no limit.',
  },
  {
    env: 'SHUTDOWN_GRACE_MS',
    kind: { type: 'int', min: 0, max: 3_600_000 },
    defaultValue: '25000',
    description:
      "On SIGTERM or SIGINT, how long the gateway waits for the requests in flight (it accepts no new connection meanwhile) before it exits anyway; calls still running then are recovered from the journal as after a crash. Keep it below the orchestrator's own grace (Kubernetes: terminationGracePeriodSeconds, 30 s by default). A close by app.close() (tests, an embedding application) waits as long, then closes the connections still open instead of exiting.",
  },
  {
    env: 'JOURNAL_SWEEP_INTERVAL_MS',
    kind: { type: 'int', min: 0, max: 3_600_000 },
    defaultValue: '10000',
    description:
      "How often the dead-owner sweep lists side-effecting calls left STARTED past their lease in the HITL queue as UNKNOWN_OUTCOME requests, and ends those left in closed sessions as FAILED OUTCOME_UNKNOWN (0: no requests are raised, the runtime's resubmit still raises them; calls left in closed sessions are still ended, every JOURNAL_LEASE_MS).",
  },
  {
    env: 'GATEWAY_INSTANCE_ID',
    kind: { type: 'string', pattern: /^[a-zA-Z0-9_.:-]{1,64}$/, hint: 'use letters, digits and _.:- (max 64)' },
    description: 'Name of this gateway process in journal leases and sync locks; default: hostname-pid-random.',
  },
  {
    env: 'RESULT_STORE_MAX_BYTES',
    kind: { type: 'int', min: 0, max: 4_294_967_295 },
    defaultValue: '67108864',
    description: 'Size of the in-memory LRU of tool results in front of the durable store (bytes).',
  },
  {
    env: 'RESULT_DEFAULT_MAX_INLINE_CHARS',
    kind: { type: 'int', min: 100, max: 10_000_000 },
    defaultValue: '20000',
    description:
      "Result content above this many characters comes back truncated, with paging through READ_TOOL_RESULT; a tool's result.maxInlineChars replaces it.",
  },
  {
    env: 'TOOL_SPECS_CACHE_CHECK_MS',
    kind: { type: 'int', min: 0, max: 60_000 },
    defaultValue: '0',
    description:
      "How often the visibility cache asks the database whether the configuration changed (0: on every request). Another instance's admin write shows after at most this long.",
  },
  {
    env: 'RETENTION_DAYS',
    kind: { type: 'int', min: 1, max: 36_500 },
    defaultValue: '30',
    description:
      'Days a CLOSED session is kept after it closed, with its journal, results, resume records, decided HITL requests and tool-log rows; tool-log rows of no session (executeDirect) are kept this long after they were written. ACTIVE and INTERRUPTED sessions, STARTED journal entries and PENDING HITL requests are never deleted.',
  },
  {
    env: 'SESSION_IDLE_CLOSE_DAYS',
    kind: { type: 'int', min: 0, max: 36_500 },
    defaultValue: '0',
    description:
      'Days an ACTIVE or INTERRUPTED session may go unchanged (no act of a new iteration, resume, run step or built-in writing to it) before the retention job (RETENTION_ENABLED) closes it as DELETE /sessions/{id} does: an approval it waits for is rejected, its workspace removed, its sub-agent sessions closed; RETENTION_DAYS later it is deleted. RUNNING sessions are left to their runs. 0 = never.',
  },
  {
    env: 'RETENTION_ENABLED',
    kind: { type: 'bool' },
    defaultValue: 'true',
    description: 'Run the scheduled retention job (deletes in batches of 500 rows, one short statement each).',
  },
  {
    env: 'RETENTION_INTERVAL_MS',
    kind: { type: 'int', min: 1000, max: 86_400_000 },
    defaultValue: '3600000',
    description: 'How often the retention job runs.',
  },
  {
    env: 'NACOS_SERVER_ADDR',
    kind: { type: 'string', pattern: /^$|^[^,\s]+:\d+(,[^,\s]+:\d+)*$/, hint: 'use host:port[,host:port]' },
    defaultValue: '',
    description: 'Nacos servers (host:port[,host:port]); Nacos discovery is off when empty.',
  },
  {
    env: 'NACOS_NAMESPACE',
    kind: { type: 'string' },
    defaultValue: 'public',
    description: 'Default Nacos namespace of MCP services.',
  },
  {
    env: 'NACOS_TENANT_NAMESPACES',
    kind: {
      type: 'string',
      pattern: /^$|^[^=;|\s]+=[^=;|\s]+(\|[^=;|\s]+)*(;[^=;|\s]+=[^=;|\s]+(\|[^=;|\s]+)*)*$/,
      hint: 'use tenant=namespace[|namespace][;tenant=namespace...], e.g. acme=acme-prod|acme-dev;globex=globex',
    },
    defaultValue: '',
    description:
      "The Nacos namespaces each tenant's NACOS MCP services may name (tenant=namespace[|namespace];...): the gateway looks services up with the platform's Nacos credentials, so a tenant admin may not name another namespace (omitted: the tenant's first). A tenant without an entry registers no NACOS service, and a service its admin registered in a namespace later taken off its tenant is no longer looked up (DOWN); the platform admin key may name any namespace.",
  },
  { env: 'NACOS_USERNAME', kind: { type: 'string' }, defaultValue: '', description: 'Nacos user name (optional).' },
  {
    env: 'NACOS_PASSWORD',
    kind: { type: 'string' },
    defaultValue: '',
    secret: true,
    description: 'Nacos password (optional, never logged).',
  },
  {
    env: 'MCP_HEALTH_INTERVAL_MS',
    kind: { type: 'int', min: 200, max: 3_600_000 },
    defaultValue: '10000',
    description:
      'Scheduled MCP health check and repair; a service with no healthy instance is hidden within two intervals.',
  },
  {
    env: 'MCP_REPAIR_ENABLED',
    kind: { type: 'bool' },
    defaultValue: 'true',
    description: 'Run the scheduled MCP health check and tool repair.',
  },
  {
    env: 'MCP_SYNC_DEBOUNCE_MS',
    kind: { type: 'int', min: 0, max: 600_000 },
    defaultValue: '2000',
    description:
      'Nacos instance-change events and MCP notifications/tools/list_changed within this window become one sync.',
  },
  {
    env: 'MCP_DEFAULT_PATH',
    kind: { type: 'string' },
    defaultValue: '/mcp',
    description: 'MCP endpoint path on a Nacos instance whose metadata names none (metadata key mcp.path).',
  },
  {
    env: 'MCP_DEFAULT_TRANSPORT',
    kind: { type: 'enum', values: ['streamable-http', 'sse'] },
    defaultValue: 'streamable-http',
    description: 'MCP transport of a Nacos instance whose metadata names none (metadata key mcp.transport).',
  },
  {
    env: 'MCP_TOOLS_CALL_CLIENT',
    kind: { type: 'enum', values: ['exchange', 'sdk'] },
    defaultValue: 'exchange',
    description:
      "How tools/call reaches streamable-HTTP MCP servers. exchange: straight over the outbound HTTP client (14-27% less time per execute at 1 caller, 23% less gateway CPU per call: npm run bench:execute). sdk: through the MCP SDK client like every other request (the benchmark's comparison, or a fallback). Legacy SSE servers always use the SDK.",
  },
  {
    env: 'MCP_SESSION_IDLE_MS',
    kind: { type: 'int', min: 0, max: 86_400_000 },
    defaultValue: '600000',
    description:
      'A pooled MCP session unused this long is closed (the next call opens a new one), unless it is the one used last of those to a server watched for tools/list_changed; 0 keeps sessions open until their server, headers or the gateway change.',
  },
  {
    env: 'WEB_SEARCH_URL',
    kind: {
      type: 'string',
      pattern: /^$|^https?:\/\/[^\s/?#]+\S*$/i,
      hint: 'use an http(s) URL, e.g. https://search.example.com/api',
    },
    defaultValue: '',
    description:
      'Search provider endpoint (GET ?q=&count=, JSON {results:[{title,url,snippet}]}); platform web search is off when empty.',
  },
  {
    env: 'WEB_SEARCH_API_KEY',
    kind: { type: 'string' },
    defaultValue: '',
    secret: true,
    description: 'Bearer key sent to the search provider.',
  },
  {
    env: 'KNOWLEDGE_SEARCH_TIMEOUT_MS',
    kind: { type: 'int', min: 100, max: 600_000 },
    defaultValue: '10000',
    description:
      "Budget of one search of an HTTP knowledge base's retrieval service, its answer's body included: past it the search fails with KNOWLEDGE_BASE_UNREACHABLE (RAG_SEARCH: a failed call).",
  },
  {
    env: 'KNOWLEDGE_DELETION_INTERVAL_MS',
    kind: { type: 'int', min: 0, max: 86_400_000 },
    defaultValue: '60000',
    description:
      'How often a job finishes knowledge-base deletions left unfinished for a minute (a process died after the base was gone: its passages, terms and agent bindings); 0: never (DELETE again cannot finish them: the base answers 404).',
  },
  {
    env: 'TOOL_SECRETS',
    kind: { type: 'list' },
    defaultValue: '',
    secret: true,
    description:
      "Platform secrets: comma-separated NAME=value pairs that headers of platform-wide tools and MCP services and the apiKey of platform-wide model providers (tenantId null) reference as ${secret:NAME}; a tenant's tools and providers resolve only that tenant's own secrets. Values never reach the database or the logs.",
  },
  {
    env: 'SECRETS_KEY',
    kind: {
      type: 'string',
      pattern: /^[0-9a-fA-F]{64}$/,
      hint: 'use 32 bytes as 64 hex characters, e.g. `openssl rand -hex 32`',
    },
    defaultValue: '',
    secret: true,
    description:
      'Key (32 bytes as 64 hex characters) that encrypts tenant secrets (PUT /api/v1/admin/tenants/{tenantId}/secrets/{name}) with AES-256-GCM. Unset: tenant secrets cannot be stored (409 SECRETS_NOT_CONFIGURED) and tenant tools cannot use ${secret:NAME}; keep it stable, values stored under another key cannot be read.',
  },
  {
    env: 'DEMO_TOOLS_ENABLED',
    kind: { type: 'bool' },
    defaultValue: 'true',
    description:
      'Load the demo @FeignTool order service so a new user sees the mechanism work. Unset in production means false.',
  },
  {
    env: 'LOG_LEVEL',
    kind: { type: 'enum', values: ['error', 'warn', 'log', 'debug', 'verbose'] },
    defaultValue: 'log',
    description: 'Lowest log level printed.',
  },
  {
    env: 'LOG_FORMAT',
    kind: { type: 'enum', values: ['auto', 'json', 'pretty'] },
    defaultValue: 'auto',
    description:
      "json: one JSON line per log (request id, tenant, session, tool call id). pretty: Nest's coloured console lines, no per-request lines. auto: pretty when NODE_ENV=development and stdout is a terminal, else json.",
  },
  {
    env: 'METRICS_TOKEN',
    kind: {
      type: 'string',
      pattern: /^$|^\S{16,}$/,
      hint: 'use at least 16 characters without spaces, e.g. `openssl rand -hex 24`',
    },
    defaultValue: '',
    secret: true,
    description:
      'When set, GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>" (401 otherwise); empty: /metrics needs no key.',
  },
  {
    env: 'SANDBOX_DRIVER',
    kind: { type: 'enum', values: ['bwrap', 'none'] },
    description:
      'How RUN_COMMAND is isolated. bwrap: bubblewrap (namespaces, no network, read-only system folders, rlimits); none: SANDBOX is unavailable (never an unsandboxed fallback). Unset: bwrap when bubblewrap is installed, else none.',
  },
  {
    env: 'SANDBOX_TIMEOUT_MS',
    kind: { type: 'int', min: 100, max: 3_600_000 },
    defaultValue: '30000',
    description:
      'Longest wall time of one sandboxed command; a RUN_COMMAND timeoutMs is capped by it. Past it everything the command started is killed.',
  },
  {
    env: 'SANDBOX_MEMORY_MB',
    kind: { type: 'int', min: 16, max: 1_048_576 },
    defaultValue: '512',
    description: 'Address-space limit (RLIMIT_AS) of each process in the sandbox, in MiB.',
  },
  {
    env: 'SANDBOX_MAX_PROCESSES',
    kind: { type: 'int', min: 4, max: 100_000 },
    defaultValue: '64',
    description: 'Processes and threads one sandboxed command may have at once (RLIMIT_NPROC, counted per sandbox).',
  },
  {
    env: 'SANDBOX_MAX_FILE_MB',
    kind: { type: 'int', min: 1, max: 1_048_576 },
    defaultValue: '64',
    description:
      'Largest file a sandboxed command may write (RLIMIT_FSIZE), in MiB; also the size of its private /tmp.',
  },
  {
    env: 'SANDBOX_OUTPUT_MAX_BYTES',
    kind: { type: 'int', min: 1024, max: 268_435_456 },
    defaultValue: '1048576',
    description:
      'Bytes of stdout and of stderr kept per command (each). Past it that stream is closed, as `| head -c` would: the writer gets SIGPIPE, the result says truncated.',
  },
  {
    env: 'WORKSPACE_ROOT',
    kind: { type: 'string', pattern: /^.+$/, hint: 'use a directory path, e.g. data/workspaces' },
    defaultValue: 'data/workspaces',
    description:
      'Where session workspaces (<root>/sessions/<tenantId>/<sessionId>) and published artifacts (<root>/artifacts/<tenantId>) live. Several instances must share it (a shared volume).',
  },
  {
    env: 'WORKSPACE_MAX_BYTES',
    kind: { type: 'int', min: 1024, max: 1_099_511_627_776 },
    defaultValue: '104857600',
    description:
      'Bytes one session workspace may hold in all (file tools, uploads; commands are held by SANDBOX_MAX_FILE_MB).',
  },
  {
    env: 'WORKSPACE_MAX_FILES',
    kind: { type: 'int', min: 1, max: 1_000_000 },
    defaultValue: '1000',
    description: 'Files (and folders) one session workspace may hold.',
  },
  {
    env: 'WORKSPACE_MAX_FILE_BYTES',
    kind: { type: 'int', min: 1, max: 1_099_511_627_776 },
    defaultValue: '20971520',
    description:
      'Largest single file a file tool or an upload may write, and the largest EDIT_FILE reads whole (READ_FILE pages a larger file; PUBLISH_FILE copies one of any size, within ARTIFACTS_MAX_BYTES).',
  },
  {
    env: 'ARTIFACTS_MAX_BYTES',
    kind: { type: 'int', min: 0, max: 1_099_511_627_776 },
    defaultValue: '1073741824',
    description:
      "Bytes a tenant's published artifacts may hold in all (PUBLISH_FILE past it fails; an admin deletes old ones with DELETE /api/v1/artifacts/{id}); 0 = no limit.",
  },
  {
    env: 'ARTIFACTS_MAX_COUNT',
    kind: { type: 'int', min: 0, max: 100_000_000 },
    defaultValue: '10000',
    description:
      'Artifacts a tenant may hold (empty files too, which ARTIFACTS_MAX_BYTES does not bound; PUBLISH_FILE past it fails; an admin deletes old ones with DELETE /api/v1/artifacts/{id}); 0 = no limit.',
  },
  {
    env: 'ARTIFACTS_RETENTION_DAYS',
    kind: { type: 'int', min: 0, max: 36_500 },
    defaultValue: '0',
    description:
      'Days a published artifact is kept after it was published: the retention job (RETENTION_ENABLED) deletes older ones, row and file, whatever their session; 0 = kept until an admin deletes them.',
  },
  {
    env: 'EVENTS_STREAM_POLL_MS',
    kind: { type: 'int', min: 50, max: 60_000 },
    defaultValue: '1000',
    description:
      'How often GET /sessions/{id}/events/stream looks for new events written by other instances (events of this instance wake it at once).',
  },
  {
    env: 'EVENTS_STREAM_MAX_PER_TENANT',
    kind: { type: 'int', min: 1, max: 100_000 },
    defaultValue: '100',
    description:
      'Event streams (GET /sessions/{id}/events/stream) one tenant may hold open on one instance; one more is a 429 (each open stream reads the database every EVENTS_STREAM_POLL_MS).',
  },
  {
    env: 'RATE_LIMIT_PER_MINUTE',
    // The throttler keeps a timestamp per counted request and scans them on each: bounded to keep that cheap.
    kind: { type: 'int', min: 0, max: 60_000 },
    defaultValue: '0',
    description:
      'Requests one API key may make per minute on one instance (every route but /health and /metrics), at most 60000; one more is a 429 TOO_MANY_REQUESTS with Retry-After. 0: no limit.',
  },
  {
    env: 'AUTH_FAILURES_PER_MINUTE',
    kind: { type: 'int', min: 0, max: 1_000_000 },
    defaultValue: '0',
    description:
      "Failed authentications (401: no, malformed, unknown or revoked key) one client address may cause per minute on one instance; past them, until that minute is over, the address's requests get 429 TOO_MANY_REQUESTS with Retry-After without their key being looked up, unless the key is one this instance already knows as a real key. The address is the connection's peer, or, from a proxy listed in TRUST_PROXY, the client it forwards for; an IPv6 address counts by its /64, which one client holds whole. 0: no limit.",
  },
  {
    env: 'TRUST_PROXY',
    kind: { type: 'list' },
    defaultValue: '',
    description:
      "Comma-separated addresses or CIDR ranges of the reverse proxies in front of the gateway (or loopback, linklocal, uniquelocal), e.g. 10.0.0.0/8. A request from one of them is taken to come from the address its X-Forwarded-For names last that is not itself a listed proxy: that address is what AUTH_FAILURES_PER_MINUTE counts. Empty: every request's address is its connection's peer and X-Forwarded-For is ignored (behind a proxy, all clients then share the proxy's address).",
  },
  {
    env: 'GATEWAY_FAULT_INJECTION',
    kind: { type: 'string' },
    defaultValue: '',
    description: 'TEST ONLY: crash points for the crash-matrix tests. Refused when NODE_ENV=production.',
  },
  {
    env: 'SKILL_MAX_FILES',
    kind: { type: 'int', min: 1, max: 100000 },
    defaultValue: '500',
    description: 'Most files one skill release may hold (a larger zip or JSON upload is refused, nothing stored).',
  },
  {
    env: 'SKILL_MAX_BYTES',
    kind: { type: 'int', min: 1024, max: 1073741824 },
    defaultValue: '20971520',
    description:
      'Most bytes one skill release may hold unpacked (20 MiB), counted while the zip is read, whatever its headers claim; also the largest upload read.',
  },
  {
    env: 'SKILL_MAX_RELEASES',
    kind: { type: 'int', min: 1, max: 100000 },
    defaultValue: '100',
    description:
      'Most releases one skill may have (releases are kept: a rollback needs them); one more upload is a 409 SKILL_RELEASE_LIMIT, read before the upload is, and nothing is stored.',
  },
  {
    env: 'SKILL_CACHE_DIR',
    kind: { type: 'string' },
    defaultValue: 'data/skill-cache',
    description:
      'Where skill releases are unpacked, read-only, for the sandbox (mounted at /skills/<name>); a cache rebuilt from the database on demand.',
  },
  {
    env: 'RUN_LEASE_MS',
    kind: { type: 'int', min: 0, max: 3_600_000 },
    defaultValue: '0',
    description:
      "How long a run's worker counts as alive without renewing its lease; after that another instance continues the run from its last checkpoint (0: JOURNAL_LEASE_MS).",
  },
  {
    env: 'TASK_WORKERS',
    kind: { type: 'int', min: 0, max: 64 },
    defaultValue: '2',
    description:
      'Runs of the agent loop (and sub-agent tasks) this instance works on at once, taken from the shared durable queue (0: this instance works none).',
  },
  {
    env: 'RUNS_MAX_RUNNING_PER_TENANT',
    kind: { type: 'int', min: 0, max: 10_000 },
    defaultValue: '0',
    description:
      "Runs of one tenant all instances work at once (0: no cap). With it, a tenant whose model provider answers slowly (or never, within the provider's timeoutMs and retries) cannot hold every TASK_WORKERS place of every instance while other tenants' runs wait. A sub-agent's run that a SUB_AGENT_CALL waits for takes the place its parent lends, which the cap does not stop. Two instances claiming at the same moment may pass it by one.",
  },
  {
    env: 'RUN_POLL_INTERVAL_MS',
    kind: { type: 'int', min: 10, max: 60_000 },
    defaultValue: '500',
    description:
      'How often an idle run worker looks at the queue for runs queued by another instance, continued after a decision, or left by a dead worker.',
  },
  {
    env: 'MODEL_CALL_TIMEOUT_MS',
    kind: { type: 'int', min: 1000, max: 3_600_000 },
    defaultValue: '120000',
    description:
      "Budget of one model request, its answer's body included (each retry gets its own); a provider's options.timeoutMs replaces it.",
  },
  {
    env: 'MODEL_MAX_ANSWER_BYTES',
    kind: { type: 'int', min: 65_536, max: 268_435_456 },
    defaultValue: '8388608',
    description:
      'Bytes of one model answer: a larger one fails the run with the reason, before it is held in memory or stored in the conversation.',
  },
  {
    env: 'MODEL_MAX_RETRIES',
    kind: { type: 'int', min: 0, max: 10 },
    defaultValue: '2',
    description:
      "Retries of a model request answered 408/409/429/5xx or cut off, with back-off and jitter honouring Retry-After (up to MODEL_RETRY_MAX_AFTER_MS); then the run FAILS with the reason. A provider's options.maxRetries replaces it.",
  },
  {
    env: 'MODEL_RETRY_MAX_AFTER_MS',
    kind: { type: 'int', min: 0, max: 600_000 },
    defaultValue: '60000',
    description:
      'Longest wait a model provider may ask for before a retry (Retry-After or retry-after-ms on a 429/5xx answer); a longer one is not waited for: the run FAILS at once with the reason.',
  },
  {
    env: 'SUBAGENT_MAX_DEPTH',
    kind: { type: 'int', min: 1, max: 10 },
    defaultValue: '3',
    description: 'Delegation hops allowed from a root session (SUB_AGENT_CALL, SUBMIT_SUBAGENT_TASK).',
  },
  {
    env: 'SUBAGENT_MAX_OPEN_TASKS',
    kind: { type: 'int', min: 1, max: 1000 },
    defaultValue: '16',
    description:
      "Sub-agent tasks a root session's whole delegation tree (its tasks, theirs and so on) may have unfinished at once (queued, running or waiting for a human); a model's further delegation anywhere in the tree is refused until one ends.",
  },
] as const satisfies readonly SettingDefinition[];

export type GatewaySettingName = (typeof GATEWAY_SETTINGS)[number]['env'];
