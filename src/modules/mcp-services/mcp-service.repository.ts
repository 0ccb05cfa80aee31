import { nameKeyOf } from '@app/common/name-key';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { McpServiceEntity } from './mcp-service.entity';

/** Queries of `mcp_service`. */
@Injectable()
export class McpServiceRepository {
  constructor(@InjectRepository(McpServiceEntity) private readonly services: Repository<McpServiceEntity>) {}

  findById(id: string): Promise<McpServiceEntity | null> {
    return this.services.findOne({ where: { id } });
  }

  /** Which of `ids` are services that exist. */
  async existingIds(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.services.find({ where: { id: In([...new Set(ids)]) }, select: { id: true } });
    return new Set(rows.map((r) => r.id));
  }

  findAll(): Promise<McpServiceEntity[]> {
    return this.services.find({ order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** The service of the scope with this name in any case (names are ASCII; MySQL compares them so anyway, SQLite only through LOWER). */
  findByScopeAndName(scopeKey: string, name: string): Promise<McpServiceEntity | null> {
    return this.services
      .createQueryBuilder('s')
      .where('s.scope_key = :scopeKey AND LOWER(s.name) = :key', { scopeKey, key: nameKeyOf(name) })
      .getOne();
  }

  /** A page of services; `tenantId` undefined: every service (platform admin), else only that tenant's. */
  list(tenantId: string | undefined, skip: number, take: number): Promise<[McpServiceEntity[], number]> {
    return this.services.findAndCount({
      where: tenantId === undefined ? {} : { tenantId },
      order: { name: 'ASC', id: 'ASC' },
      skip,
      take,
    });
  }

  async insert(row: McpServiceEntity): Promise<void> {
    await this.services.insert(row);
  }

  async update(id: string, changes: Partial<McpServiceEntity>, manager?: EntityManager): Promise<void> {
    await (manager?.getRepository(McpServiceEntity) ?? this.services).update({ id }, changes);
  }

  /**
   * Whether the service still exists, its row locked until the transaction `m` ends (MySQL; SQLite runs one
   * transaction at a time): a deletion, which deletes the row first, waits for a sync's write, and a sync's write
   * after a deletion sees the service gone.
   */
  async lockIfExists(m: EntityManager, id: string): Promise<boolean> {
    const mysql = m.connection.options.type !== 'better-sqlite3';
    const found = await m
      .getRepository(McpServiceEntity)
      .findOne({ where: { id }, select: { id: true }, ...(mysql && { lock: { mode: 'pessimistic_write' as const } }) });
    return found !== null;
  }

  async delete(manager: EntityManager, id: string): Promise<void> {
    await manager.getRepository(McpServiceEntity).delete({ id });
  }
}
