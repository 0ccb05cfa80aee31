import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { TenantSecretEntity } from './tenant-secret.entity';

/** Queries of `tenant_secret`; every one is scoped to one tenant. */
@Injectable()
export class TenantSecretsRepository {
  constructor(@InjectRepository(TenantSecretEntity) private readonly secrets: Repository<TenantSecretEntity>) {}

  findAllOfTenant(tenantId: string): Promise<TenantSecretEntity[]> {
    return this.secrets.find({ where: { tenantId } });
  }

  findOne(tenantId: string, name: string, manager?: EntityManager): Promise<TenantSecretEntity | null> {
    return (manager?.getRepository(TenantSecretEntity) ?? this.secrets).findOne({ where: { tenantId, name } });
  }

  /** A page of the tenant's secrets by name. */
  page(tenantId: string, skip: number, take: number): Promise<[TenantSecretEntity[], number]> {
    return this.secrets.findAndCount({ where: { tenantId }, order: { name: 'ASC' }, skip, take });
  }

  async insert(manager: EntityManager, row: TenantSecretEntity): Promise<void> {
    await manager.getRepository(TenantSecretEntity).insert(row);
  }

  /** Whether the secret was there to update (a DELETE may have removed it since it was read). */
  async updateValue(
    manager: EntityManager,
    tenantId: string,
    name: string,
    valueEncrypted: string,
    updatedAt: number,
  ): Promise<boolean> {
    const result = await manager
      .getRepository(TenantSecretEntity)
      .update({ tenantId, name }, { valueEncrypted, updatedAt });
    return (result.affected ?? 0) > 0;
  }

  /** Whether the secret was there to delete (another DELETE may have removed it since it was read). */
  async delete(manager: EntityManager, tenantId: string, name: string): Promise<boolean> {
    const result = await manager.getRepository(TenantSecretEntity).delete({ tenantId, name });
    return (result.affected ?? 0) > 0;
  }
}
