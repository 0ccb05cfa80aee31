import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { KnowledgeBaseEntity } from './knowledge-base.entity';
import { KnowledgeDocumentEntity } from './knowledge-document.entity';

/** Queries of knowledge bases and their documents (the chunks and terms are KnowledgeChunkIndex's). */
@Injectable()
export class KnowledgeBasesRepository {
  constructor(
    @InjectRepository(KnowledgeBaseEntity) private readonly bases: Repository<KnowledgeBaseEntity>,
    @InjectRepository(KnowledgeDocumentEntity) private readonly documents: Repository<KnowledgeDocumentEntity>,
  ) {}

  findBase(id: string): Promise<KnowledgeBaseEntity | null> {
    return this.bases.findOne({ where: { id } });
  }

  /** The bases of `tenantId` among `ids` (ids of other tenants or of deleted bases are left out). */
  findBasesOfTenant(tenantId: string, ids: string[]): Promise<KnowledgeBaseEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.bases.find({ where: { tenantId, id: In(ids) }, order: { nameKey: 'ASC' } });
  }

  pageBases(tenantId: string | null, skip: number, take: number): Promise<[KnowledgeBaseEntity[], number]> {
    return this.bases.findAndCount({
      where: tenantId ? { tenantId } : {},
      order: { tenantId: 'ASC', nameKey: 'ASC' },
      skip,
      take,
    });
  }

  async insertBase(row: KnowledgeBaseEntity): Promise<void> {
    await this.bases.insert(row);
  }

  async deleteBase(m: EntityManager, id: string): Promise<void> {
    await m.getRepository(KnowledgeDocumentEntity).delete({ knowledgeBaseId: id });
    await m.getRepository(KnowledgeBaseEntity).delete({ id });
  }

  /**
   * Locks the base row until the transaction ends (MySQL; SQLite runs one transaction at a time); false when the base is
   * gone. Every transaction that changes a base's documents takes this lock first, so they and the base's deletion go
   * one after the other, always in the same order (no deadlock).
   */
  async lockBase(m: EntityManager, id: string): Promise<boolean> {
    const result = await m
      .createQueryBuilder()
      .update(KnowledgeBaseEntity)
      .set({ updatedAt: Date.now() })
      .where('id = :id', { id })
      .execute();
    return result.affected === 1;
  }

  /**
   * Adds to the base's counts atomically (concurrent writers of one base each add their own); false when the base is
   * gone. As a transaction's first statement it also takes the base's lock (see {@link lockBase}).
   */
  async addToCounts(
    m: EntityManager,
    id: string,
    delta: { documents: number; chunks: number; tokens: number },
  ): Promise<boolean> {
    const result = await m
      .createQueryBuilder()
      .update(KnowledgeBaseEntity)
      .set({
        documentCount: () => `document_count + ${Math.trunc(delta.documents)}`,
        chunkCount: () => `chunk_count + ${Math.trunc(delta.chunks)}`,
        tokenCount: () => `token_count + ${Math.trunc(delta.tokens)}`,
        updatedAt: Date.now(),
      })
      .where('id = :id', { id })
      .execute();
    return result.affected === 1;
  }

  findDocument(id: string): Promise<KnowledgeDocumentEntity | null> {
    return this.documents.findOne({ where: { id } });
  }

  /** A page of a base's documents, without their content. */
  pageDocuments(knowledgeBaseId: string, skip: number, take: number): Promise<[KnowledgeDocumentEntity[], number]> {
    return this.documents.findAndCount({
      select: [
        'id',
        'knowledgeBaseId',
        'tenantId',
        'title',
        'mimeType',
        'metadata',
        'chunkCount',
        'charCount',
        'createdAt',
      ],
      where: { knowledgeBaseId },
      order: { createdAt: 'ASC', id: 'ASC' },
      skip,
      take,
    });
  }

  async insertDocument(m: EntityManager, row: KnowledgeDocumentEntity): Promise<void> {
    await m.getRepository(KnowledgeDocumentEntity).insert(row as QueryDeepPartialEntity<KnowledgeDocumentEntity>);
  }

  /** False when another deletion took the document first. */
  async deleteDocument(m: EntityManager, id: string): Promise<boolean> {
    return (await m.getRepository(KnowledgeDocumentEntity).delete({ id })).affected === 1;
  }
}
