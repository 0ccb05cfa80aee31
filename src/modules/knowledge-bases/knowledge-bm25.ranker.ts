import type { CandidateChunk } from './knowledge-chunk.index';

/** Collection statistics of one knowledge base. */
export interface RankingStats {
  chunkCount: number;
  tokenCount: number;
  /** Chunks holding each query term. */
  documentFrequency: ReadonlyMap<string, number>;
}

export interface RankedChunk {
  chunk: CandidateChunk;
  score: number;
}

const K1 = 1.2;
const B = 0.75;

/**
 * Okapi BM25 (k1 1.2, b 0.75) over the candidates, computed here rather than by the database: FTS5's bm25() and
 * InnoDB's relevance are different formulas, and the same documents and query must rank the same on both. Every
 * input is an integer the gateway stored itself, so the scores are identical on both databases. Ties go to the
 * chunk stored first. Scores are rounded to 6 decimals. `tag`: what each term is prefixed with in the search texts (the
 * base's tag).
 */
export function rankBm25(candidates: CandidateChunk[], terms: string[], stats: RankingStats, tag = ''): RankedChunk[] {
  const n = Math.max(stats.chunkCount, 1);
  const avgLength = stats.tokenCount > 0 ? stats.tokenCount / n : 1;
  // Each term as it is written in a search text (between spaces), with its inverse document frequency.
  const idf = new Map(
    terms.map((t) => {
      const df = Math.min(stats.documentFrequency.get(t) ?? 0, n);
      return [` ${tag}${t} `, Math.log(1 + (n - df + 0.5) / (df + 0.5))];
    }),
  );
  const ranked = candidates.map((chunk) => {
    const text = ` ${chunk.searchText} `;
    const norm = K1 * (1 - B + (B * Number(chunk.tokenCount)) / avgLength);
    let score = 0;
    for (const [needle, weight] of idf) {
      const f = occurrences(text, needle);
      if (f > 0) score += weight * ((f * (K1 + 1)) / (f + norm));
    }
    return { chunk, score: Math.round(score * 1e6) / 1e6 };
  });
  return ranked.sort((a, b) => b.score - a.score || Number(a.chunk.id) - Number(b.chunk.id));
}

/** How often ` term ` occurs in ` text ` (neighbouring occurrences share their space). */
function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length - 1)) count++;
  return count;
}
