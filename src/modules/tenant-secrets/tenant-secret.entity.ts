import { Column, Entity, PrimaryColumn } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';

/**
 * `tenant_secret`: one secret of one tenant, referenced as `${secret:NAME}` in the headers of that tenant's
 * tools and MCP services. The value is stored only encrypted (AES-256-GCM with SECRETS_KEY; see
 * TenantSecretsCipher) and is never returned by the API.
 */
@Entity({ name: 'tenant_secret' })
export class TenantSecretEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  @PrimaryColumn({ type: 'varchar', length: 64 })
  name: string;

  /** `v1.<iv>.<tag>.<ciphertext>` (base64url parts). */
  @Column({ name: 'value_encrypted', type: 'text' })
  valueEncrypted: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochMs })
  updatedAt: number;
}
