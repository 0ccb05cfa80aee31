import { Column, Entity, PrimaryColumn } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';

/**
 * `mcp_sync_lease`: who syncs an MCP service right now, across gateway instances. The key is
 * `static:<mcp_service id>` or `nacos:<mcp_service id>`; a lease whose `expires_at` passed may be taken over (its
 * owner died or stalled).
 */
@Entity({ name: 'mcp_sync_lease' })
export class McpSyncLeaseEntity {
  @PrimaryColumn({ name: 'service_key', type: 'varchar', length: 512 })
  serviceKey: string;

  @Column({ type: 'varchar', length: 128 })
  owner: string;

  @Column({ name: 'expires_at', type: 'bigint', transformer: epochMs })
  expiresAt: number;
}
