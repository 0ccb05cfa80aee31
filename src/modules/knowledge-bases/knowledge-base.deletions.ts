import { Injectable, Logger } from '@nestjs/common';
import { AgentConfigService } from '@app/modules/agent-config/agent-config.service';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, LessThan } from 'typeorm';
import { KnowledgeBaseEntity } from './knowledge-base.entity';
import { KnowledgeBaseDeletionEntity } from './knowledge-base-deletion.entity';
import { KnowledgeChunkIndex } from './knowledge-chunk.index';
import { KnowledgeBasesRepository } from './knowledge-bases.repository';

/** Passages of a base removed per transaction when it is deleted (SQLite: about 0.25 s of work each). */
export const BASE_DELETE_BATCH = 2000;

/** Deletions the job finishes per round, oldest first. */
const DELETIONS_PER_ROUND = 20;

/**
 * Deleting a knowledge base in two steps. {@link start}, in the caller's transaction: the base's row and documents go,
 * and a `knowledge_base_deletion` mark is written, so the base is gone for every reader at once (lists, searches,
 * bindings, new documents). {@link finish}: its passages and terms go after that, a bounded batch per transaction, so
 * other requests are served between them; the mark goes with the last batch. A process that dies between the two
 * leaves the mark, and {@link finishAbandoned} (the deletion job) removes what is left.
 */
@Injectable()
export class KnowledgeBaseDeletions {
  private readonly logger = new Logger(KnowledgeBaseDeletions.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly index: KnowledgeChunkIndex,
    private readonly repo: KnowledgeBasesRepository,
    private readonly agents: AgentConfigService,
  ) {}

  /** In `m`, a transaction that holds the base's lock (see KnowledgeBasesRepository.lockBase). */
  async start(m: EntityManager, base: Pick<KnowledgeBaseEntity, 'id' | 'tenantId'>): Promise<void> {
    await this.repo.deleteBase(m, base.id);
    await m
      .getRepository(KnowledgeBaseDeletionEntity)
      .insert({ id: base.id, tenantId: base.tenantId, startedAt: Date.now() });
  }

  /**
   * Ends the deletion {@link start} began: unbinds the base's agents again (a binding written after the first unbinding
   * saw the base; its own re-check after writing sees it gone), then removes its passages and terms, then its mark.
   */
  async finish({ id, tenantId }: Pick<KnowledgeBaseEntity, 'id' | 'tenantId'>): Promise<void> {
    await this.agents.forgetKnowledgeBase(tenantId, id);
    while (
      (await this.dataSource.transaction((m) => this.index.removeBasePassages(m, id, BASE_DELETE_BATCH))) >=
      BASE_DELETE_BATCH
    );
    await this.dataSource.transaction(async (m) => {
      await this.index.removeBase(m, id);
      await m.getRepository(KnowledgeBaseDeletionEntity).delete({ id });
    });
  }

  /**
   * Finishes deletions begun before `startedBefore` and left unfinished (their process died, or their request failed
   * after the base was gone), the agents' second unbinding included, which a dead process never made. Removing what
   * is already gone does nothing, so a deletion another instance is finishing at the same time ends the same; one
   * that fails is logged and tried again next round, after the others. Returns how many were finished.
   */
  async finishAbandoned(startedBefore: number): Promise<number> {
    const left = await this.dataSource.getRepository(KnowledgeBaseDeletionEntity).find({
      where: { startedAt: LessThan(startedBefore) },
      order: { startedAt: 'ASC' },
      take: DELETIONS_PER_ROUND,
    });
    let finished = 0;
    for (const deletion of left) {
      try {
        await this.finish(deletion);
        finished++;
      } catch (err) {
        this.logger.warn(`knowledge base ${deletion.id}: deletion not finished yet: ${(err as Error).message}`);
      }
    }
    return finished;
  }
}
