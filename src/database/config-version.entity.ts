import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One row (id = 1) whose `version` every write that changes visibility bumps. Caches in every gateway
 * instance compare it, so two instances on one MySQL see each other's admin writes.
 */
@Entity({ name: 'config_version' })
export class ConfigVersionEntity {
  @PrimaryColumn({ type: 'int' })
  id: number;

  @Column({ type: 'bigint', transformer: { to: (v: number) => v, from: (v: string | number) => Number(v) } })
  version: number;
}

/** The per-tenant configuration version (see ConfigVersionService). */
@Entity({ name: 'tenant_config_version' })
export class TenantConfigVersionEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  @Column({ type: 'bigint', transformer: { to: (v: number) => v, from: (v: string | number) => Number(v) } })
  version: number;
}
