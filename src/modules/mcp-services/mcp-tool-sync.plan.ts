import { stripUnsafeText } from '@app/common/safe-text';
import { nameKeyOf } from '@app/common/name-key';
import { AiToolEntity } from '@app/modules/tool-registry/ai-tool.entity';
import { scopeKeyOf } from '@app/modules/tool-registry/tool-descriptor.mapper';
import type { ServiceType, SideEffectLevel } from '@app/modules/tool-registry/tool-registry.types';
import { SIDE_EFFECT_LEVELS } from '@app/modules/tool-registry/tool-registry.types';
import { jsonValueNestsDeeperThan, MAX_JSON_DEPTH, tooDeepProblem } from '@app/common/json-depth';
import { mcpToolChecksum, type ListedMcpTool } from './mcp-tool.checksum';
import { allocateMcpToolNames } from './mcp-tool-name';
import { sideEffectOf } from './mcp-tool-side-effect';
import type { McpServiceRecord, McpToolCollision, McpToolRejection } from './mcp-service.types';

/** One write of a sync. `update` carries the row as read: the writer applies it only if `version` still matches. */
export type McpToolSyncStep =
  | { kind: 'insert'; row: AiToolEntity }
  | { kind: 'update'; row: AiToolEntity; changes: Partial<AiToolEntity>; outcome: 'added' | 'updated' | 'disabled' };

/** What a sync will do, decided from one read of the rows: the writes and the report (by registry name). */
export interface McpToolSyncPlan {
  steps: McpToolSyncStep[];
  added: string[];
  updated: string[];
  disabled: string[];
  unchanged: string[];
  collisions: McpToolCollision[];
  rejected: McpToolRejection[];
}

/** Everything the plan is decided from. */
export interface McpToolSyncInput {
  service: McpServiceRecord;
  /** serviceType and endpoint of the service's tools (MCP_NACOS "service@group" or MCP_REMOTE URL). */
  target: { serviceType: Extract<ServiceType, 'MCP_NACOS' | 'MCP_REMOTE'>; endpoint: string };
  listed: readonly ListedMcpTool[];
  /** Every `ai_tool` row of this service (any status). */
  rows: readonly AiToolEntity[];
  /** Rows (of any source or service) holding one of {@link namesWanted}'s names in the service's scope. */
  nameHolders: readonly AiToolEntity[];
  /** The MCP services of `nameHolders` that no longer exist (deleted): their DISABLED tools may be taken back. */
  goneServiceIds: ReadonlySet<string>;
  /** Problems of an input schema as tool parameters (ToolSchemaCompiler.checkDefinition). */
  checkSchema: (schema: unknown) => string[];
  now: number;
  newId: () => string;
}

/** Tag that records the side-effect level the sync derived from the annotations, to tell an admin's override. */
const HINT_TAG_PREFIX = 'mcp-hint:';
const MAX_DESCRIPTION = 8000;
const MAX_REMOTE_NAME = 128;
/** What a MySQL TEXT column (`ai_tool.parameters`) holds: a larger schema is refused on every database alike. */
const MAX_SCHEMA_BYTES = 65_535;

/** The registry names the listed tools that have no row yet would take (to look up their holders first). */
export function namesWanted(
  service: McpServiceRecord,
  listed: readonly ListedMcpTool[],
  rows: readonly AiToolEntity[],
): string[] {
  return [...newToolNames(service, listed, rows).values()];
}

/**
 * By remote name, the names of the listed tools without a row: distinct case-insensitively from each other
 * and from every row of the service (whatever its status), the same whatever the listing's order.
 */
function newToolNames(
  service: McpServiceRecord,
  listed: readonly ListedMcpTool[],
  rows: readonly AiToolEntity[],
): Map<string, string> {
  const known = new Set(rows.map((r) => r.remoteName));
  const remoteNames = listed
    .map((t) => t.name)
    .filter((n) => typeof n === 'string' && n.length > 0 && n.length <= MAX_REMOTE_NAME && !known.has(n));
  return allocateMcpToolNames(
    service.toolPrefix,
    remoteNames,
    rows.map((r) => r.nameKey),
  );
}

/**
 * Decides a sync (pure): a listed tool without a row is inserted under a name of its own (see
 * {@link allocateMcpToolNames}) unless a tool of another source or service holds that name in any case (a
 * collision: reported, never overwritten), or takes back the DISABLED tool of that name a deleted service of the
 * same scope left (a service registered again: its tools return ACTIVE, their ids and bindings kept); a row whose definition checksum moved is updated and its
 * version bumped; a DISABLED row whose tool is back becomes ACTIVE; an ACTIVE row whose tool is gone (or now
 * has an unusable schema) becomes DISABLED, bindings kept. RETIRED rows are the admin's: never touched.
 * Only source fields are rewritten (description, parameters, tags, and the side-effect level unless an admin
 * changed it); policy fields (enabled, timeout, permission tags, requires, hitl, result) stay as set.
 */
export function planMcpToolSync(input: McpToolSyncInput): McpToolSyncPlan {
  const plan: McpToolSyncPlan = {
    steps: [],
    added: [],
    updated: [],
    disabled: [],
    unchanged: [],
    collisions: [],
    rejected: [],
  };
  const byRemote = new Map(input.rows.filter((r) => r.remoteName !== null).map((r) => [r.remoteName!, r]));
  const present = new Set<string>();
  const seen = new Set<string>();
  const names = newToolNames(input.service, input.listed, input.rows);
  for (const tool of input.listed) {
    const row = typeof tool.name === 'string' ? byRemote.get(tool.name) : undefined;
    const problems = problemsOf(tool, seen, row, input.checkSchema);
    if (typeof tool.name === 'string') seen.add(tool.name);
    if (problems.length) {
      plan.rejected.push({ remoteName: shownRemoteName(tool.name), problems });
      continue;
    }
    if (row) {
      present.add(row.id);
      planExisting(row, tool, input, plan);
    } else {
      planNew(tool, names.get(tool.name)!, input, plan);
    }
  }
  for (const row of input.rows) {
    if (present.has(row.id) || row.status !== 'ACTIVE') continue;
    plan.steps.push({
      kind: 'update',
      row,
      outcome: 'disabled',
      changes: { status: 'DISABLED', version: row.version + 1, updatedAt: input.now },
    });
    plan.disabled.push(row.name);
  }
  return plan;
}

/**
 * A rejected tool's name as the report shows it: a name too long to register is cut (the report stays bounded), a
 * name that is no string shows as JSON (not "[object Object]").
 */
function shownRemoteName(name: unknown): string {
  const text = name === undefined || name === null ? '' : typeof name === 'string' ? name : JSON.stringify(name);
  return text.length <= MAX_REMOTE_NAME ? text : `${text.slice(0, MAX_REMOTE_NAME)}… (${text.length} characters)`;
}

function problemsOf(
  tool: ListedMcpTool,
  seen: ReadonlySet<string>,
  row: AiToolEntity | undefined,
  checkSchema: (schema: unknown) => string[],
): string[] {
  if (typeof tool.name !== 'string' || tool.name.length === 0) return ['has no name'];
  if (seen.has(tool.name)) return ['is listed more than once; the first one was used'];
  if (tool.name.length > MAX_REMOTE_NAME) return [`has a name longer than ${MAX_REMOTE_NAME} characters`];
  // Before the checksum: canonical JSON recurses, and a schema thousands of levels deep would overflow the stack.
  if (jsonValueNestsDeeperThan(tool.inputSchema, MAX_JSON_DEPTH))
    return [`inputSchema ${tooDeepProblem(MAX_JSON_DEPTH)}`];
  if (jsonValueNestsDeeperThan(tool.annotations, MAX_JSON_DEPTH))
    return [`annotations ${tooDeepProblem(MAX_JSON_DEPTH)}`];
  // A definition already stored under this checksum was checked when it was stored (compiling schemas is the costly part of a sync).
  if (row && row.definitionChecksum === mcpToolChecksum(tool)) return [];
  const problems = checkSchema(tool.inputSchema).map((p) => `inputSchema ${p}`);
  if (!problems.length && Buffer.byteLength(JSON.stringify(tool.inputSchema)) > MAX_SCHEMA_BYTES)
    problems.push(`inputSchema is larger than ${MAX_SCHEMA_BYTES} bytes as JSON in UTF-8`);
  return problems;
}

function planExisting(row: AiToolEntity, tool: ListedMcpTool, input: McpToolSyncInput, plan: McpToolSyncPlan): void {
  if (row.status === 'RETIRED') {
    plan.unchanged.push(row.name);
    return;
  }
  const changes: Partial<AiToolEntity> = {};
  const checksum = mcpToolChecksum(tool);
  if (row.definitionChecksum !== checksum) {
    const hinted = sideEffectOf(tool.annotations);
    Object.assign(changes, definitionFields(tool, input.service, hinted), { definitionChecksum: checksum });
    // The admin may have changed the level (PATCH sideEffect): keep theirs; follow the hint only when the row still has the last one.
    if (row.sideEffect !== hintedLevelOf(row.tags)) delete changes.sideEffect;
  }
  if (row.status === 'DISABLED') changes.status = 'ACTIVE';
  // The service's headers and URL may have changed (PATCH): its tools send what it sends.
  if (JSON.stringify(row.headers ?? null) !== JSON.stringify(input.service.headers ?? null))
    changes.headers = input.service.headers ?? null;
  if (row.endpoint !== input.target.endpoint) changes.endpoint = input.target.endpoint;
  if (Object.keys(changes).length === 0) {
    plan.unchanged.push(row.name);
    return;
  }
  plan.steps.push({
    kind: 'update',
    row,
    outcome: 'updated',
    changes: { ...changes, version: row.version + 1, updatedAt: input.now },
  });
  plan.updated.push(row.name);
}

function planNew(tool: ListedMcpTool, name: string, input: McpToolSyncInput, plan: McpToolSyncPlan): void {
  const { service } = input;
  const nameKey = nameKeyOf(name);
  // The service's own scope first: a tenant's tool left by its deleted service is taken back even where a later
  // platform tool of its name now exists (which it shadows for that tenant, as before the service was deleted).
  const holders = input.nameHolders.filter((h) => h.nameKey === nameKey);
  const holder = holders.find((h) => h.tenantId === service.tenantId) ?? holders[0];
  if (holder && leftByDeletedService(holder, input)) {
    planTakenBack(holder, tool, input, plan);
    return;
  }
  if (holder) {
    plan.collisions.push({
      remoteName: tool.name,
      name,
      existingToolId: holder.id,
      existingSource: holder.source,
      existingMcpServiceId: holder.mcpServiceId,
      existingTenantId: holder.tenantId,
    });
    return;
  }
  const hinted = sideEffectOf(tool.annotations);
  const row: AiToolEntity = {
    id: input.newId(),
    tenantId: service.tenantId,
    scopeKey: scopeKeyOf(service.tenantId),
    name,
    nameKey,
    ...definitionFields(tool, service, hinted),
    serviceType: input.target.serviceType,
    endpoint: input.target.endpoint,
    httpMethod: null,
    headers: service.headers ?? null,
    timeoutMs: null,
    permissionTags: [],
    remoteName: tool.name,
    requires: [],
    enabled: true,
    status: 'ACTIVE',
    source: 'MCP',
    version: 1,
    hitl: null,
    result: null,
    mcpServiceId: service.id,
    definitionChecksum: mcpToolChecksum(tool),
    createdAt: input.now,
    updatedAt: input.now,
  };
  plan.steps.push({ kind: 'insert', row });
  plan.added.push(name);
}

/** A tool a deleted service of the service's own scope left DISABLED (an admin's RETIRED one stays theirs). */
function leftByDeletedService(holder: AiToolEntity, input: McpToolSyncInput): boolean {
  return (
    holder.source === 'MCP' &&
    holder.status === 'DISABLED' &&
    holder.mcpServiceId !== null &&
    input.goneServiceIds.has(holder.mcpServiceId) &&
    holder.scopeKey === scopeKeyOf(input.service.tenantId)
  );
}

/** The service takes the row back: its definition and target as listed now, ACTIVE; policy fields as the admin set them. */
function planTakenBack(row: AiToolEntity, tool: ListedMcpTool, input: McpToolSyncInput, plan: McpToolSyncPlan): void {
  const changes: Partial<AiToolEntity> = {
    ...definitionFields(tool, input.service, sideEffectOf(tool.annotations)),
    definitionChecksum: mcpToolChecksum(tool),
    mcpServiceId: input.service.id,
    remoteName: tool.name,
    serviceType: input.target.serviceType,
    endpoint: input.target.endpoint,
    headers: input.service.headers ?? null,
    status: 'ACTIVE',
    version: row.version + 1,
    updatedAt: input.now,
  };
  if (row.sideEffect !== hintedLevelOf(row.tags)) delete changes.sideEffect;
  plan.steps.push({ kind: 'update', row, outcome: 'added', changes });
  plan.added.push(row.name);
}

/** The plan as written when the database refused some steps: those tools are reported as rejected instead. */
export function withoutRefusedSteps(
  plan: McpToolSyncPlan,
  refused: ReadonlyArray<{ step: McpToolSyncStep; reason: string }>,
): McpToolSyncPlan {
  if (refused.length === 0) return plan;
  const names = new Set(refused.map((r) => r.step.row.name));
  const keep = (list: string[]) => list.filter((n) => !names.has(n));
  return {
    ...plan,
    steps: plan.steps.filter((s) => !refused.some((r) => r.step === s)),
    added: keep(plan.added),
    updated: keep(plan.updated),
    disabled: keep(plan.disabled),
    rejected: [
      ...plan.rejected,
      ...refused.map((r) => ({
        remoteName: r.step.row.remoteName ?? r.step.row.name,
        problems: [`could not be stored (${r.reason}); it is left as it was`],
      })),
    ],
  };
}

/**
 * The fields a tool's MCP definition decides. Control and bidi-override characters are removed from the
 * description (an admin's would be refused; a remote's must not fail the sync nor reach the model).
 */
function definitionFields(
  tool: ListedMcpTool,
  service: McpServiceRecord,
  hinted: SideEffectLevel,
): Pick<AiToolEntity, 'description' | 'parameters' | 'tags' | 'sideEffect'> {
  const given = [tool.description, tool.title]
    .map((t) => (typeof t === 'string' ? stripUnsafeText(t) : ''))
    .find((t) => t.trim().length > 0);
  const text = given ?? `MCP tool ${stripUnsafeText(tool.name)} of service ${service.name}.`;
  return {
    description: text.slice(0, MAX_DESCRIPTION),
    parameters: tool.inputSchema,
    tags: ['mcp', `${HINT_TAG_PREFIX}${hinted}`],
    sideEffect: hinted,
  };
}

/** The level the sync last derived for a row (from its tag), undefined when it has none. */
function hintedLevelOf(tags: readonly string[]): SideEffectLevel | undefined {
  const level = tags.find((t) => t.startsWith(HINT_TAG_PREFIX))?.slice(HINT_TAG_PREFIX.length);
  return (SIDE_EFFECT_LEVELS as readonly string[]).includes(level ?? '') ? (level as SideEffectLevel) : undefined;
}
