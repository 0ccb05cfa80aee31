import { Injectable } from '@nestjs/common';
import { KnowledgeBaseEntity } from './knowledge-base.entity';
import { KnowledgeChunkIndex } from './knowledge-chunk.index';
import { KnowledgeHttpClient } from './knowledge-http.client';
import { rankBm25 } from './knowledge-bm25.ranker';
import { baseTag, queryTerms } from './knowledge-text.tokenizer';
import type { KnowledgeSearchHit } from './knowledge-bases.types';

/** Query terms used, at most (a pasted paragraph as a query stays cheap). */
const MAX_QUERY_TERMS = 32;
/** A term in more than this share of the chunks finds no candidates when the query has a rarer one. */
const COMMON_TERM_SHARE = 0.5;
/**
 * Postings (chunks holding a term, summed over the terms) the full-text engine reads for candidates, at most: its cost
 * grows with them (InnoDB ranks every match, ~3 µs each on the benchmark machine). The most common terms, the lowest
 * BM25 weights, are left out of the lookup first (as Elasticsearch's common-terms query does with its high-frequency
 * terms); they still count in the ranking of the candidates. The rarest term is looked for whatever its count. On the
 * benchmark's 10,000 chunks, 94% of the top results and 93% of the top 5 are those of an unbounded lookup (1,500: 90%,
 * 84%; 5,000: 98%, 97%), at 14 ms against 22 ms through act on MariaDB.
 */
const CANDIDATE_POSTINGS_BUDGET = 3000;

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
    const documentFrequency = await this.index.documentFrequencies(base.id, terms);
    const candidates = await this.index.candidates(base.id, candidateTerms(terms, documentFrequency, base.chunkCount));
    const ranked = rankBm25(
      candidates,
      terms,
      { chunkCount: base.chunkCount, tokenCount: base.tokenCount, documentFrequency },
      baseTag(base.id),
    );
    // A candidate holding no query term (a word MariaDB's parser does not see as one leaves just the base's tag) scores
    // 0: it is no answer.
    const top = ranked.filter((r) => r.score > 0).slice(0, topK);
    const passages = new Map(
      (
        await this.index.passages(
          base.id,
          top.map((r) => r.chunk.id),
        )
      ).map((p) => [p.id, p]),
    );
    return top.flatMap(({ chunk, score }) => {
      const p = passages.get(chunk.id);
      return p ? [{ documentId: p.documentId, title: p.title, content: p.content, score, heading: p.heading }] : [];
    });
  }
}

/**
 * The terms the full-text engine looks for: the ones the base holds, without those in more than half its chunks
 * (their BM25 weight is near zero, and matching them would make the engine rank most of the base), rarest first
 * while their postings fit {@link CANDIDATE_POSTINGS_BUDGET}; the rarest is always looked for. All query terms still
 * count in the ranking of the candidates.
 */
export function candidateTerms(terms: string[], df: ReadonlyMap<string, number>, chunkCount: number): string[] {
  const byRarity = terms.filter((t) => (df.get(t) ?? 0) > 0).sort((a, b) => df.get(a)! - df.get(b)!);
  const selective = byRarity.filter((t) => df.get(t)! <= chunkCount * COMMON_TERM_SHARE);
  const looked = selective.length > 0 ? selective : byRarity.slice(0, 1);
  let postings = 0;
  return looked.filter((t, i) => (postings += df.get(t)!) <= CANDIDATE_POSTINGS_BUDGET || i === 0);
}
