import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';
import type { ModelProviderKind, ModelProviderOptions } from './model-providers.types';

/** An OpenAI-compatible endpoint the gateway's own agent loop asks; its key is a `${secret:NAME}` reference. */
@Entity({ name: 'model_provider' })
@Index('idx_model_provider_tenant', ['tenantId'])
@Index('uq_model_provider_scope_name_key', ['scopeKey', 'nameKey'], { unique: true })
export class ModelProviderEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  /** null: platform-wide (any tenant's agent may use it; its key comes from TOOL_SECRETS). */
  @Column({ name: 'tenant_id', type: 'varchar', length: 64, nullable: true })
  tenantId: string | null;

  /** The tenant, or `*` for a platform-wide provider: names are unique per scope (tenant ids never hold `*`). */
  @Column({ name: 'scope_key', type: 'varchar', length: 64 })
  scopeKey: string;

  @Column({ type: 'varchar', length: 128 })
  name: string;

  /**
   * The lower-cased name (`nameKeyOf`), compared byte for byte under the unique index per scope. Twice the name's
   * length: `İ` lower-cases to two characters.
   */
  @Column({ name: 'name_key', type: 'varchar', length: 256 })
  nameKey: string;

  @Column({ type: 'varchar', length: 32 })
  kind: ModelProviderKind;

  @Column({ name: 'base_url', type: 'varchar', length: 2048 })
  baseUrl: string;

  /** `${secret:NAME}` (never a value) or null for a server that needs no key. */
  @Column({ name: 'api_key_ref', type: 'varchar', length: 128, nullable: true })
  apiKeyRef: string | null;

  @Column({ type: 'varchar', length: 256 })
  model: string;

  @Column({ type: 'simple-json', nullable: true })
  options: ModelProviderOptions | null;

  /** Bumped by every PATCH: cached clients are per provider version. */
  @Column({ type: 'int' })
  version: number;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochMs })
  updatedAt: number;
}
