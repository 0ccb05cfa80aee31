import { nameKeyOf } from '@app/common/name-key';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { AiToolEntity, nameScopesOf } from '@app/modules/tool-registry/ai-tool.entity';

/** Queries of `ai_tool` the MCP sync needs beyond the registry's own repository. */
@Injectable()
export class McpToolRowsRepository {
  constructor(@InjectRepository(AiToolEntity) private readonly tools: Repository<AiToolEntity>) {}

  /**
   * In one query, the rows holding one of `names` (in any case) that a tool of `tenantId`'s scope may not share, as the
   * registry's create rule (see {@link nameScopesOf}).
   */
  findNameHolders(names: string[], tenantId: string | null): Promise<AiToolEntity[]> {
    if (names.length === 0) return Promise.resolve([]);
    return this.tools
      .createQueryBuilder('t')
      .where('t.name_key IN (:...keys)', { keys: [...new Set(names.map(nameKeyOf))] })
      .andWhere('t.scope_key IN (:...scopes)', { scopes: nameScopesOf(tenantId) })
      .getMany();
  }

  /** The service's tools follow a change of its headers (and, STATIC, its URL): one statement, versions bumped. */
  async followService(
    manager: EntityManager,
    mcpServiceId: string,
    changes: Pick<Partial<AiToolEntity>, 'headers' | 'endpoint'>,
    now: number,
  ): Promise<void> {
    await manager
      .createQueryBuilder()
      .update(AiToolEntity)
      .set({ ...changes, version: () => 'version + 1', updatedAt: now })
      .where('mcp_service_id = :mcpServiceId', { mcpServiceId })
      .execute();
  }

  /** DISABLED (bindings kept) for every ACTIVE tool of a deleted service; how many. */
  async disableForService(manager: EntityManager, mcpServiceId: string, now: number): Promise<number> {
    const result = await manager
      .createQueryBuilder()
      .update(AiToolEntity)
      .set({ status: 'DISABLED', version: () => 'version + 1', updatedAt: now })
      .where('mcp_service_id = :mcpServiceId AND status = :active', { mcpServiceId, active: 'ACTIVE' })
      .execute();
    return result.affected ?? 0;
  }
}
