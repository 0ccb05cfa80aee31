import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { epochMs } from '@app/database/epoch-ms.transformer';
import { LargeText } from '@app/database/large-text.column';
import { jsonText } from '@app/database/json-column';
import type { KnowledgeMimeType } from './knowledge-bases.types';

/** `knowledge_document`: a document as it was added; its chunks (knowledge_chunk) are what searches rank. */
@Entity({ name: 'knowledge_document' })
@Index('idx_knowledge_document_base', ['knowledgeBaseId', 'createdAt'])
export class KnowledgeDocumentEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'knowledge_base_id', type: 'varchar', length: 36 })
  knowledgeBaseId: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  @Column({ type: 'varchar', length: 512 })
  title: string;

  @Column({ name: 'mime_type', type: 'varchar', length: 32 })
  mimeType: KnowledgeMimeType;

  @LargeText()
  @Column({ type: 'text' })
  content: string;

  @Column({ type: 'text', nullable: true, transformer: jsonText })
  metadata: Record<string, unknown> | null;

  @Column({ name: 'chunk_count', type: 'int' })
  chunkCount: number;

  @Column({ name: 'char_count', type: 'int' })
  charCount: number;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;
}
