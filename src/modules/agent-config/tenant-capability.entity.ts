import { Column, Entity, PrimaryColumn } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';

/** The platform capability policy of one tenant (absent row: every capability off). */
@Entity({ name: 'tenant_capability' })
export class TenantCapabilityEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  @Column({ name: 'web_search', type: 'boolean', width: 1 })
  webSearch: boolean;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochMs })
  updatedAt: number;
}
