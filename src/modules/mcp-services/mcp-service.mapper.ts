import { toIso } from '@app/database/epoch-ms.transformer';
import type { McpServiceEntity } from './mcp-service.entity';
import type { McpServiceRecord } from './mcp-service.types';
import type { McpServiceDto } from './mcp-services.dto';

export function toMcpServiceRecord(e: McpServiceEntity): McpServiceRecord {
  return {
    id: e.id,
    name: e.name,
    kind: e.kind,
    url: e.url,
    serviceName: e.serviceName,
    groupName: e.groupName,
    namespaceId: e.namespaceId,
    namespaceChosenBy: e.namespaceChosenBy,
    transport: e.transport,
    path: e.path,
    tenantId: e.tenantId,
    headers: e.headers,
    toolPrefix: e.toolPrefix,
    health: e.health,
    healthReason: e.healthReason,
    lastSyncAt: e.lastSyncAt,
    lastListHash: e.lastListHash,
    lastSyncResult: e.lastSyncResult,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
  };
}

export function toMcpServiceDto(s: McpServiceRecord): McpServiceDto {
  return {
    id: s.id,
    name: s.name,
    kind: s.kind,
    url: s.url,
    serviceName: s.serviceName,
    groupName: s.groupName,
    namespaceId: s.namespaceId,
    transport: s.transport,
    path: s.path,
    tenantId: s.tenantId,
    headers: s.headers,
    toolPrefix: s.toolPrefix,
    health: s.health,
    healthReason: s.healthReason,
    lastSyncAt: toIso(s.lastSyncAt),
    lastSync: s.lastSyncResult,
    createdAt: toIso(s.createdAt)!,
    updatedAt: toIso(s.updatedAt)!,
  };
}
