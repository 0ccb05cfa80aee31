import { Column, Entity, Index, PrimaryColumn, Unique } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';
import type {
  HttpMethod,
  JsonSchema,
  ServiceType,
  SideEffectLevel,
  ToolHitlPolicy,
  Dependency,
  ToolResultPolicy,
  ToolSource,
  ToolStatus,
} from './tool-registry.types';

/** Scope key of platform-wide tools in the unique (scope, name) constraint (NULLs never collide). */
export const PLATFORM_SCOPE = '*';

/**
 * The scopes whose tool names a tool of `tenantId` may not take (in any letter case): a tenant's tool, its tenant's
 * and the platform's (a tenant cannot shadow a platform tool); a platform-wide tool (null), the platform's alone. A
 * tenant's tool that had the name first then shadows the platform's for that tenant (calls by the name reach it, the
 * visibility filter explains the other), as for a @FeignTool deployed later: no tenant can keep a name from the platform.
 */
export function nameScopesOf(tenantId: string | null): string[] {
  return tenantId === null ? [PLATFORM_SCOPE] : [tenantId, PLATFORM_SCOPE];
}

@Entity({ name: 'ai_tool' })
@Unique('uq_ai_tool_scope_name', ['scopeKey', 'name'])
@Index('uq_ai_tool_scope_name_key', ['scopeKey', 'nameKey'], { unique: true })
@Index('idx_ai_tool_tenant', ['tenantId'])
@Index('idx_ai_tool_source', ['source'])
@Index('idx_ai_tool_mcp_service', ['mcpServiceId'])
// A name in every scope: the platform key's clash check, and platform-wide MCP services' name holders.
@Index('idx_ai_tool_name_key', ['nameKey'])
export class AiToolEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64, nullable: true })
  tenantId: string | null;

  /** tenant_id, or '*' for platform-wide tools. */
  @Column({ name: 'scope_key', type: 'varchar', length: 64 })
  scopeKey: string;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  /** The name lower-cased (nameKeyOf): names are unique per scope case-insensitively on every database. */
  @Column({ name: 'name_key', type: 'varchar', length: 64 })
  nameKey: string;

  @Column({ type: 'text' })
  description: string;

  @Column({ type: 'simple-json' })
  parameters: JsonSchema;

  @Column({ name: 'service_type', type: 'varchar', length: 16 })
  serviceType: ServiceType;

  @Column({ type: 'varchar', length: 2048 })
  endpoint: string;

  @Column({ name: 'http_method', type: 'varchar', length: 8, nullable: true })
  httpMethod: HttpMethod | null;

  @Column({ type: 'simple-json', nullable: true })
  headers: Record<string, string> | null;

  @Column({ name: 'timeout_ms', type: 'int', nullable: true })
  timeoutMs: number | null;

  @Column({ name: 'permission_tags', type: 'simple-json' })
  permissionTags: string[];

  @Column({ type: 'simple-json' })
  tags: string[];

  @Column({ name: 'side_effect', type: 'varchar', length: 16 })
  sideEffect: SideEffectLevel;

  @Column({ name: 'remote_name', type: 'varchar', length: 128, nullable: true })
  remoteName: string | null;

  @Column({ type: 'simple-json' })
  requires: Dependency[];

  @Column({ type: 'boolean', width: 1 })
  enabled: boolean;

  @Column({ type: 'varchar', length: 16 })
  status: ToolStatus;

  @Column({ type: 'varchar', length: 16 })
  source: ToolSource;

  @Column({ type: 'int' })
  version: number;

  @Column({ type: 'simple-json', nullable: true })
  hitl: ToolHitlPolicy | null;

  @Column({ name: 'result_policy', type: 'simple-json', nullable: true })
  result: ToolResultPolicy | null;

  @Column({ name: 'mcp_service_id', type: 'varchar', length: 36, nullable: true })
  mcpServiceId: string | null;

  /** Feign/MCP: checksum of the definition last written by the scanner or the sync. */
  @Column({ name: 'definition_checksum', type: 'varchar', length: 64, nullable: true })
  definitionChecksum: string | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochMs })
  updatedAt: number;
}
