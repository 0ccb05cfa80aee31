import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { ModelProviderEntity } from './model-provider.entity';

/** Queries of model providers. */
@Injectable()
export class ModelProvidersRepository {
  constructor(@InjectRepository(ModelProviderEntity) private readonly providers: Repository<ModelProviderEntity>) {}

  find(id: string): Promise<ModelProviderEntity | null> {
    return this.providers.findOneBy({ id });
  }

  /** A tenant's own and the platform-wide ones (tenantId null: all). */
  list(tenantId: string | null, skip: number, take: number): Promise<[ModelProviderEntity[], number]> {
    const where = tenantId === null ? {} : [{ tenantId }, { tenantId: IsNull() }];
    return this.providers.findAndCount({ where, order: { createdAt: 'ASC', id: 'ASC' }, skip, take });
  }

  async nameTaken(scopeKey: string, nameKey: string, exceptId?: string): Promise<boolean> {
    const holder = await this.providers.findOneBy({ scopeKey, nameKey });
    return holder !== null && holder.id !== exceptId;
  }

  async insert(row: ModelProviderEntity): Promise<void> {
    await this.providers.insert(row);
  }

  /** Writes the changes and bumps the version in the same statement (two concurrent changes get two versions). */
  async update(id: string, changes: Omit<Partial<ModelProviderEntity>, 'version'>): Promise<void> {
    await this.providers.update({ id }, { ...changes, version: () => 'version + 1' });
  }

  async delete(id: string): Promise<void> {
    await this.providers.delete({ id });
  }
}
