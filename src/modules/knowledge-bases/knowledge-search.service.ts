import { Injectable } from '@nestjs/common';
import { KnowledgeBaseEntity } from './knowledge-base.entity';
import { KnowledgeChunkIndex } from './knowledge-chunk.index';
import { KnowledgeHttpClient } from './knowledge-http.client';
import { rankBm25 } from './knowledge-bm25.ranker';
import { queryTerms } from './knowledge-text.tokenizer';
import type { KnowledgeSearchHit } from './knowledge-bases.types';

/** Query terms used, at most (a pasted paragraph as a query stays cheap). */
const MAX_QUERY_TERMS = 32;

/**
 * One search of one knowledge base, as the admin search and RAG_SEARCH both run it. INTERNAL: the full-text engine
 * of the database picks candidates, BM25 over the base's own statistics ranks them (the same on both databases).
 * HTTP: the team's retrieval service answers. Results are best first, one per passage.
 * @throws ToolCallError when an HTTP base's service fails (callers turn it into their own error).
 */
@Injectable()
export class KnowledgeSearchService {
  constructor(
    private readonly index: KnowledgeChunkIndex,
    private readonly http: KnowledgeHttpClient,
  ) {}

  async search(
    base: KnowledgeBaseEntity,
    query: string,
    topK: number,
    signal?: AbortSignal,
  ): Promise<KnowledgeSearchHit[]> {
    if (base.kind === 'HTTP') {
      return this.http.search(base.url!, { tenantId: base.tenantId, knowledgeBaseId: base.id }, query, topK, signal);
    }
    const terms = queryTerms(query).slice(0, MAX_QUERY_TERMS);
    if (terms.length === 0 || base.chunkCount === 0) return [];
    const [candidates, documentFrequency] = await Promise.all([
      this.index.candidates(base.id, terms),
      this.index.documentFrequencies(base.id, terms),
    ]);
    const ranked = rankBm25(candidates, terms, {
      chunkCount: base.chunkCount,
      tokenCount: base.tokenCount,
      documentFrequency,
    });
    return ranked.slice(0, topK).map(({ chunk, score }) => ({
      documentId: chunk.documentId,
      title: chunk.title,
      content: chunk.content,
      score,
      heading: chunk.heading,
    }));
  }
}
