import { nameKeyOf } from '@app/common/name-key';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, EntityManager, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { AiToolEntity, nameScopesOf, PLATFORM_SCOPE } from './ai-tool.entity';
import type { ServiceType, ToolDescriptor, ToolSource, ToolStatus } from './tool-registry.types';
import { HotSql } from '@app/database/hot-sql';
import { AI_TOOL_COLUMNS, toolFromRow } from './ai-tool.row';

export interface ToolListFilter {
  /** undefined: every tenant (platform admin); otherwise that tenant's and platform-wide tools. */
  tenantId?: string;
  source?: ToolSource;
  serviceType?: ServiceType;
  status?: ToolStatus;
  enabled?: boolean;
  q?: string;
  skip: number;
  take: number;
}

/** Queries of `ai_tool`. */
@Injectable()
export class ToolRegistryRepository {
  constructor(
    @InjectRepository(AiToolEntity) private readonly tools: Repository<AiToolEntity>,
    private readonly sql: HotSql,
  ) {}

  findById(id: string): Promise<AiToolEntity | null> {
    return this.tools.findOne({ where: { id } });
  }

  /** Tools with this name in any case that a tool in `tenantId`'s scope may not share (see {@link nameScopesOf}). */
  findNameClashes(name: string, tenantId: string | null): Promise<AiToolEntity[]> {
    return this.tools
      .createQueryBuilder('t')
      .where('t.name_key = :key', { key: nameKeyOf(name) })
      .andWhere('t.scope_key IN (:...scopes)', { scopes: nameScopesOf(tenantId) })
      .getMany();
  }

  /** The tool a tenant means by `name` (exactly): its own first, else the platform-wide one. */
  async findByNameInScope(name: string, tenantId: string | null): Promise<AiToolEntity | null> {
    const rows = (await this.findNameClashes(name, tenantId)).filter((r) => r.name === name);
    return rows.find((r) => r.tenantId === tenantId) ?? rows.find((r) => r.tenantId === null) ?? null;
  }

  /** Every tool a tenant can see in the registry: its own and the platform-wide ones (raw: may be 10,000s of rows). */
  async findAllInScope(tenantId: string): Promise<ToolDescriptor[]> {
    const rows = await this.sql.all(`SELECT ${AI_TOOL_COLUMNS} FROM ai_tool WHERE scope_key IN (?, ?)`, [
      tenantId,
      PLATFORM_SCOPE,
    ]);
    return rows.map(toolFromRow);
  }

  findByMcpService(mcpServiceId: string): Promise<AiToolEntity[]> {
    return this.tools.find({ where: { mcpServiceId } });
  }

  async list(filter: ToolListFilter): Promise<[AiToolEntity[], number]> {
    const qb = this.tools.createQueryBuilder('t');
    if (filter.tenantId !== undefined)
      qb.andWhere('t.scope_key IN (:...scopes)', { scopes: [filter.tenantId, PLATFORM_SCOPE] });
    if (filter.source) qb.andWhere('t.source = :source', { source: filter.source });
    if (filter.serviceType) qb.andWhere('t.service_type = :serviceType', { serviceType: filter.serviceType });
    if (filter.status) qb.andWhere('t.status = :status', { status: filter.status });
    if (filter.enabled !== undefined) qb.andWhere('t.enabled = :enabled', { enabled: filter.enabled });
    if (filter.q) {
      // '!' as the LIKE escape: a backslash literal is read differently by MySQL and SQLite.
      const like = `%${filter.q.replace(/[!%_]/g, (c) => `!${c}`)}%`;
      qb.andWhere(
        new Brackets((w) =>
          w.where("t.name LIKE :like ESCAPE '!'", { like }).orWhere("t.description LIKE :like ESCAPE '!'", { like }),
        ),
      );
    }
    return qb.orderBy('t.name', 'ASC').addOrderBy('t.id', 'ASC').skip(filter.skip).take(filter.take).getManyAndCount();
  }

  insert(manager: EntityManager, row: AiToolEntity): Promise<unknown> {
    return manager.getRepository(AiToolEntity).insert(row as QueryDeepPartialEntity<AiToolEntity>);
  }

  update(manager: EntityManager, id: string, changes: Partial<AiToolEntity>): Promise<unknown> {
    return manager.getRepository(AiToolEntity).update({ id }, changes as QueryDeepPartialEntity<AiToolEntity>);
  }

  /** Compare-and-set on `version`: false when someone (an admin, another writer) changed the row since it was read. */
  async updateIfVersion(
    manager: EntityManager,
    id: string,
    version: number,
    changes: Partial<AiToolEntity>,
  ): Promise<boolean> {
    const result = await manager
      .getRepository(AiToolEntity)
      .update({ id, version }, changes as QueryDeepPartialEntity<AiToolEntity>);
    return result.affected === 1;
  }
}
