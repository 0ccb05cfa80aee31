import { Column, Entity, Index, PrimaryColumn, Unique } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';
import type { ApiRole } from '@app/common/auth/auth-context';

/** An API key; only the SHA-256 of the key is stored (keys are 32 random bytes, so a fast hash is enough). */
@Entity({ name: 'api_key' })
@Unique('uq_api_key_hash', ['keyHash'])
@Index('idx_api_key_tenant', ['tenantId'])
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 128 })
  name: string;

  @Column({ type: 'varchar', length: 16 })
  role: ApiRole;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  @Column({ name: 'key_hash', type: 'varchar', length: 64 })
  keyHash: string;

  /** The first characters of the key, to tell keys apart in lists. */
  @Column({ name: 'key_prefix', type: 'varchar', length: 16 })
  keyPrefix: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;
}
