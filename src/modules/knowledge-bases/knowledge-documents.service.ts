import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { randomUUID } from 'node:crypto';
import type { AuthContext } from '@app/common/auth/auth-context';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { validationFailed } from '@app/common/errors/validation';
import { stripUnsafeText } from '@app/common/safe-text';
import { pageOf, PageQueryDto, pageWindow } from '@app/common/dto/page.dto';
import { toIso } from '@app/database/epoch-ms.transformer';
import { KnowledgeBaseEntity } from './knowledge-base.entity';
import { KnowledgeDocumentEntity } from './knowledge-document.entity';
import { KnowledgeBasesRepository } from './knowledge-bases.repository';
import { KnowledgeBasesService } from './knowledge-bases.service';
import { IndexedChunk, KnowledgeChunkIndex } from './knowledge-chunk.index';
import { chunkDocument } from './knowledge-markdown.chunker';
import { baseTag, tokenize } from './knowledge-text.tokenizer';
import { KnowledgeBasesErrorCode } from './knowledge-bases.errors';
import { DOCUMENT_MAX_CHUNKS } from './knowledge-bases.types';
import type { CreateKnowledgeDocumentDto, KnowledgeDocumentDto, KnowledgeDocumentPageDto } from './knowledge-bases.dto';

const METADATA_MAX_CHARS = 16_000;
/** Longest stretch of tokenizing before other work gets the event loop. */
const TOKENIZE_SLICE_MS = 20;

/**
 * Documents of INTERNAL knowledge bases. Adding one chunks it, tokenizes each chunk (title, heading and text) and
 * stores the document, its chunks, the term statistics and the base's counts in one transaction: a search sees a
 * document whole or not at all. Deleting one takes all of it out again.
 */
@Injectable()
export class KnowledgeDocumentsService {
  constructor(
    private readonly bases: KnowledgeBasesService,
    private readonly repo: KnowledgeBasesRepository,
    private readonly index: KnowledgeChunkIndex,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async add(
    auth: AuthContext,
    knowledgeBaseId: string,
    dto: CreateKnowledgeDocumentDto,
  ): Promise<KnowledgeDocumentDto> {
    const base = assertInternal(await this.bases.load(auth, knowledgeBaseId));
    if (dto.metadata !== undefined && JSON.stringify(dto.metadata).length > METADATA_MAX_CHARS) {
      throw validationFailed([
        {
          field: 'metadata',
          problems: [
            `must be at most ${METADATA_MAX_CHARS} characters as JSON; keep the document's text in content, and fewer or shorter entries in metadata`,
          ],
        },
      ]);
    }
    const content = stripUnsafeText(dto.content);
    const tag = baseTag(base.id);
    const chunks: IndexedChunk[] = [];
    // Tokenizing a long document takes seconds (2,000,000 characters of Chinese: about 5 s on 2 cores): other
    // requests get the event loop every TOKENIZE_SLICE_MS.
    const passages = chunkDocument(content, dto.mimeType);
    if (passages.length > DOCUMENT_MAX_CHUNKS) {
      throw validationFailed([
        {
          field: 'content',
          problems: [
            `is cut into ${passages.length} passages, more than ${DOCUMENT_MAX_CHUNKS} passages a document may have (many tiny sections); split it into several documents or merge its short sections`,
          ],
        },
      ]);
    }
    let sliceStarted = performance.now();
    for (const c of passages) {
      const tokens = tokenize(`${dto.title}\n${c.heading ?? ''}\n${c.content}`);
      chunks.push({ ...c, searchText: tokens.map((t) => tag + t).join(' '), tokenCount: tokens.length });
      if (performance.now() - sliceStarted >= TOKENIZE_SLICE_MS) {
        await new Promise((resume) => setImmediate(resume));
        sliceStarted = performance.now();
      }
    }
    if (chunks.length === 0) {
      throw validationFailed([
        { field: 'content', problems: ["has no text to index (only blank lines); send the document's text"] },
      ]);
    }
    const row: KnowledgeDocumentEntity = {
      id: randomUUID(),
      knowledgeBaseId: base.id,
      tenantId: base.tenantId,
      title: dto.title,
      mimeType: dto.mimeType,
      content,
      metadata: dto.metadata ?? null,
      chunkCount: chunks.length,
      charCount: content.length,
      createdAt: Date.now(),
    };
    const tokens = chunks.reduce((sum, c) => sum + c.tokenCount, 0);
    await this.dataSource.transaction(async (m) => {
      // The base row first: a deletion of the base in the meantime is seen here, and waits for this one.
      if (!(await this.repo.addToCounts(m, base.id, { documents: 1, chunks: chunks.length, tokens })))
        throw baseGone(base.id);
      await this.repo.insertDocument(m, row);
      await this.index.addChunks(m, base.id, row.id, chunks);
      await this.index.addTerms(
        m,
        base.id,
        documentFrequencies(
          chunks.map((c) => c.searchText),
          tag,
        ),
      );
    });
    return toDocumentDto(row);
  }

  async list(auth: AuthContext, knowledgeBaseId: string, query: PageQueryDto): Promise<KnowledgeDocumentPageDto> {
    const base = await this.bases.load(auth, knowledgeBaseId);
    const { skip, take } = pageWindow(query);
    const [rows, total] = await this.repo.pageDocuments(base.id, skip, take);
    return pageOf(rows.map(toDocumentDto), total, query);
  }

  async get(auth: AuthContext, knowledgeBaseId: string, documentId: string): Promise<KnowledgeDocumentDto> {
    const row = await this.load(auth, knowledgeBaseId, documentId);
    return { ...toDocumentDto(row), content: row.content, chunks: await this.index.chunksOf(row.id) };
  }

  async remove(auth: AuthContext, knowledgeBaseId: string, documentId: string): Promise<KnowledgeDocumentDto> {
    const row = await this.load(auth, knowledgeBaseId, documentId);
    await this.dataSource.transaction(async (m) => {
      // The base's lock first, then the document row: of two deletions at once, the second finds it gone (404).
      await this.repo.lockBase(m, row.knowledgeBaseId);
      if (!(await this.repo.deleteDocument(m, row.id))) throw documentGone(row);
      const chunks = await this.index.searchTextsOf(m, row.id);
      const df = documentFrequencies(
        chunks.map((c) => c.searchText),
        baseTag(row.knowledgeBaseId),
      );
      await this.index.removeTerms(m, row.knowledgeBaseId, df);
      await this.index.removeDocument(m, row.id);
      const tokens = chunks.reduce((sum, c) => sum + c.tokenCount, 0);
      await this.repo.addToCounts(m, row.knowledgeBaseId, { documents: -1, chunks: -chunks.length, tokens: -tokens });
    });
    return toDocumentDto(row);
  }

  private async load(auth: AuthContext, knowledgeBaseId: string, documentId: string): Promise<KnowledgeDocumentEntity> {
    const base = await this.bases.load(auth, knowledgeBaseId);
    const row = await this.repo.findDocument(documentId);
    if (!row || row.knowledgeBaseId !== base.id) {
      throw new DomainError(
        CommonErrorCode.NOT_FOUND,
        `No document ${documentId} in knowledge base ${base.id}; list them with GET /api/v1/admin/knowledge-bases/${base.id}/documents.`,
      );
    }
    return row;
  }
}

function baseGone(knowledgeBaseId: string): DomainError {
  return new DomainError(
    CommonErrorCode.NOT_FOUND,
    `Knowledge base ${knowledgeBaseId} was deleted while the document was added; nothing was stored. Add the document to another knowledge base (GET /api/v1/admin/knowledge-bases lists them, POST creates one).`,
  );
}

function documentGone(row: KnowledgeDocumentEntity): DomainError {
  return new DomainError(
    CommonErrorCode.NOT_FOUND,
    `No document ${row.id} in knowledge base ${row.knowledgeBaseId}: another request deleted it meanwhile, so nothing is left to delete; GET /api/v1/admin/knowledge-bases/${row.knowledgeBaseId}/documents lists the documents left.`,
  );
}

function assertInternal(base: KnowledgeBaseEntity): KnowledgeBaseEntity {
  if (base.kind !== 'INTERNAL') {
    throw new DomainError(
      KnowledgeBasesErrorCode.KNOWLEDGE_BASE_NOT_INTERNAL,
      `Knowledge base ${base.name} is of kind ${base.kind}: its documents live in the retrieval service at its url. Add documents to an INTERNAL knowledge base.`,
    );
  }
  return base;
}

/** In how many of the chunks each term occurs (search texts hold the terms behind the base's tag). */
function documentFrequencies(searchTexts: string[], tag: string): Map<string, number> {
  const df = new Map<string, number>();
  for (const text of searchTexts) {
    for (const token of new Set(text.split(' '))) {
      if (!token.startsWith(tag)) continue; // '' of a chunk without words
      const term = token.slice(tag.length);
      df.set(term, (df.get(term) ?? 0) + 1);
    }
  }
  return df;
}

function toDocumentDto(row: KnowledgeDocumentEntity): KnowledgeDocumentDto {
  return {
    id: row.id,
    knowledgeBaseId: row.knowledgeBaseId,
    title: row.title,
    mimeType: row.mimeType,
    metadata: row.metadata,
    chunkCount: row.chunkCount,
    charCount: row.charCount,
    createdAt: toIso(row.createdAt)!,
  };
}
