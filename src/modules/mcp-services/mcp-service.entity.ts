import { Column, Entity, Index, PrimaryColumn, Unique } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';
import { jsonText } from '@app/database/json-column';
import { LargeText } from '@app/database/large-text.column';
import type {
  McpServiceHealth,
  McpServiceKind,
  McpServiceTransport,
  McpSyncReport,
  NacosNamespaceChooser,
} from './mcp-service.types';

/**
 * `mcp_service`: an MCP service an admin registered (a Nacos service or a static URL), the prefix of its
 * tools' names, and what the sync and the health check last saw of it.
 */
@Entity({ name: 'mcp_service' })
@Unique('uq_mcp_service_scope_name', ['scopeKey', 'name'])
@Index('idx_mcp_service_tenant', ['tenantId'])
export class McpServiceEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ type: 'varchar', length: 16 })
  kind: McpServiceKind;

  @Column({ type: 'varchar', length: 2048, nullable: true })
  url: string | null;

  @Column({ name: 'service_name', type: 'varchar', length: 200, nullable: true })
  serviceName: string | null;

  @Column({ name: 'group_name', type: 'varchar', length: 128, nullable: true })
  groupName: string | null;

  @Column({ name: 'namespace_id', type: 'varchar', length: 128, nullable: true })
  namespaceId: string | null;

  /** Who chose namespace_id (NULL: STATIC, or registered before the gateway recorded it). */
  @Column({ name: 'namespace_chosen_by', type: 'varchar', length: 16, nullable: true })
  namespaceChosenBy: NacosNamespaceChooser | null;

  @Column({ type: 'varchar', length: 16, nullable: true })
  transport: McpServiceTransport | null;

  @Column({ type: 'varchar', length: 512, nullable: true })
  path: string | null;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64, nullable: true })
  tenantId: string | null;

  /** tenant_id, or '*' for platform-wide services (NULLs never collide in a unique constraint). */
  @Column({ name: 'scope_key', type: 'varchar', length: 64 })
  scopeKey: string;

  /** Header templates sent on every MCP request (`${secret:NAME}` from the service's own scope); copied to its tools. */
  @Column({ type: 'simple-json', nullable: true })
  headers: Record<string, string> | null;

  @Column({ name: 'tool_prefix', type: 'varchar', length: 32 })
  toolPrefix: string;

  @Column({ type: 'varchar', length: 16 })
  health: McpServiceHealth;

  @Column({ name: 'health_reason', type: 'text', nullable: true })
  healthReason: string | null;

  @Column({ name: 'last_sync_at', type: 'bigint', nullable: true, transformer: epochMs })
  lastSyncAt: number | null;

  @Column({ name: 'last_list_hash', type: 'varchar', length: 64, nullable: true })
  lastListHash: string | null;

  /** Lists every tool of the listing by name (thousands on a large server): LONGTEXT on MySQL. */
  @LargeText()
  @Column({ name: 'last_sync_result', type: 'text', nullable: true, transformer: jsonText })
  lastSyncResult: McpSyncReport | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochMs })
  updatedAt: number;
}
