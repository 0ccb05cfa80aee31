import { AiToolEntity, PLATFORM_SCOPE } from './ai-tool.entity';
import type { ToolDescriptor } from './tool-registry.types';
import type { ToolDto } from './tool-registry.dto';
import { toIso } from '@app/database/epoch-ms.transformer';

export function scopeKeyOf(tenantId: string | null): string {
  return tenantId ?? PLATFORM_SCOPE;
}

export function toDescriptor(e: AiToolEntity): ToolDescriptor {
  return {
    id: e.id,
    tenantId: e.tenantId,
    name: e.name,
    description: e.description,
    parameters: e.parameters,
    serviceType: e.serviceType,
    endpoint: e.endpoint,
    httpMethod: e.httpMethod,
    headers: e.headers,
    timeoutMs: e.timeoutMs,
    permissionTags: e.permissionTags,
    tags: e.tags,
    sideEffect: e.sideEffect,
    remoteName: e.remoteName,
    requires: e.requires,
    enabled: e.enabled,
    status: e.status,
    source: e.source,
    version: e.version,
    hitl: e.hitl,
    result: e.result,
    mcpServiceId: e.mcpServiceId,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
  };
}

export function toToolDto(t: ToolDescriptor): ToolDto {
  return {
    id: t.id,
    tenantId: t.tenantId,
    name: t.name,
    description: t.description,
    parameters: t.parameters,
    serviceType: t.serviceType,
    endpoint: t.endpoint,
    httpMethod: t.httpMethod ?? undefined,
    headers: t.headers ?? undefined,
    timeoutMs: t.timeoutMs ?? undefined,
    permissionTags: t.permissionTags,
    tags: t.tags,
    sideEffect: t.sideEffect,
    remoteName: t.remoteName ?? undefined,
    requires: t.requires,
    enabled: t.enabled,
    hitl: t.hitl ?? undefined,
    result: t.result ?? undefined,
    version: t.version,
    status: t.status,
    source: t.source,
    mcpServiceId: t.mcpServiceId,
    createdAt: toIso(t.createdAt)!,
    updatedAt: toIso(t.updatedAt)!,
  };
}
