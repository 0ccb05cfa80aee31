import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';
import { bigintNumber, type KnowledgeBaseKind } from './knowledge-bases.types';

/**
 * `knowledge_base`: a tenant's knowledge base. INTERNAL ones are indexed in the gateway's database (the counts are
 * the ranking's collection statistics); HTTP ones forward searches to `url`.
 */
@Entity({ name: 'knowledge_base' })
@Index('uq_knowledge_base_tenant_name_key', ['tenantId', 'nameKey'], { unique: true })
export class KnowledgeBaseEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  @Column({ type: 'varchar', length: 128 })
  name: string;

  /**
   * The name lower-cased: names are unique per tenant case-insensitively, and RAG_SEARCH finds them so. Twice the name's
   * length: `İ` lower-cased is two characters.
   */
  @Column({ name: 'name_key', type: 'varchar', length: 256 })
  nameKey: string;

  @Column({ type: 'varchar', length: 16 })
  kind: KnowledgeBaseKind;

  @Column({ type: 'varchar', length: 2048, nullable: true })
  url: string | null;

  @Column({ name: 'document_count', type: 'int' })
  documentCount: number;

  @Column({ name: 'chunk_count', type: 'int' })
  chunkCount: number;

  /** Tokens of all chunks: with chunkCount, the average chunk length BM25 normalises by. */
  @Column({ name: 'token_count', type: 'bigint', transformer: bigintNumber })
  tokenCount: number;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochMs })
  updatedAt: number;
}
